/* errno.c - names of error codes for messages. */
#include "kernel.h"

const char *strerror(int err)
{
	static const struct { int e; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
		{ EDEADLK, "EDEADLK" }, { ENOSYS, "ENOSYS" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { EALREADY, "EALREADY" },
	};

	if (err < 0)
		err = -err;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].e == err)
			return names[i].name;
	return "E?";
}
