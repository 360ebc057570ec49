/*
 * console.c - the list of consoles and the console input path.
 *
 * Output: printk.c assembles lines and calls console_putc_raw(), which
 * writes to every registered console.
 *
 * Input: a console is either polled (its getc, asked by console_getc())
 * or interrupt driven (console_rx_irq_on(): its driver's interrupt
 * handler pushes every byte it receives into one ring, console_rx_push(),
 * and wakes the reader, console_rx_wake()).  The reader (the shell; one
 * task at a time) takes bytes from the ring first, then polls the polled
 * consoles, and sleeps in console_wait() on a semaphore that the
 * interrupt ups: it wakes for the first byte, not at the next 10 ms poll.
 *
 *   device irq (one CPU)                 reader (any CPU)
 *   ------------------------------       --------------------------------
 *   driver drains its FIFO:              console_getc(): ring, then polled
 *     console_rx_push() per byte           consoles; empty:
 *   console_rx_wake(): sema_up  ------>  console_wait(): sema_down_timeout
 *
 * A full ring never loses a byte silently.  A console that can hold its
 * sender off (->rx_stop/->rx_start: the 16550 masks its receive
 * interrupt and drops RTS) is stopped when the ring has less than
 * RX_RESERVE bytes free, so its bytes wait in the device (QEMU then holds
 * the rest of a paste back; a real line with RTS/CTS waits too), and is
 * started again once the reader has emptied the ring to half.  Bytes a
 * console pushes into a full ring anyway, and bytes its device reports
 * as overrun (console_rx_lost()), are counted; console_rx_report() (the
 * shell, before each prompt) prints the count once.
 */
#include "kernel.h"
#include "console.h"
#include "cpu.h"
#include "semaphore.h"
#include "sched.h"
#include "spinlock.h"

static struct console *consoles[CONSOLES_MAX];
static int nr_consoles;

/* The input ring: free-running indices, tail - head bytes in it.  A
 * power of two, so that the indices may wrap.  4 KiB: a pasted line is
 * far shorter, and a paste longer than the ring waits in the device
 * (rx_stop) rather than being lost. */
#define RX_RING_SIZE 4096
#define RX_RESERVE 64		/* stop a console with this much room left */
_Static_assert((RX_RING_SIZE & (RX_RING_SIZE - 1)) == 0, "power of two");

static struct {
	spinlock_t lock;	/* everything here; irq-safe */
	unsigned head, tail;
	unsigned scanned;		/* console_rx_flush_to() looked up to */
	char buf[RX_RING_SIZE];
	unsigned long pushed;		/* bytes through the ring */
	unsigned long stops;		/* consoles stopped (ring nearly full) */
	unsigned long full, overrun;	/* bytes lost: ring full, device */
	unsigned long reported;		/* full + overrun, as last reported */
	int nr_stopped;			/* consoles with ->rx_stopped */
} rx = { .lock = SPINLOCK_INIT("console-rx") };

static struct semaphore rx_sem;	/* a unit per wakeup (at most ~1) */
static int nr_polled;		/* consoles with getc, not interrupt driven */

void console_register(struct console *c)
{
	if (nr_consoles == CONSOLES_MAX) {
		printk("console: no room for console %s (%d registered)\n",
		       c->name, nr_consoles);
		return;
	}
	if (!rx_sem.name)
		sema_init(&rx_sem, 0, "console-rx");
	consoles[nr_consoles++] = c;
	if (c->getc)
		nr_polled++;
}

void console_rx_irq_on(struct console *c)
{
	unsigned long flags = spin_lock(&rx.lock);

	if (c->getc && !c->rx_irq)
		nr_polled--;
	c->rx_irq = true;
	spin_unlock(&rx.lock, flags);
}

void console_putc_raw(char ch)
{
	for (int i = 0; i < nr_consoles; i++) {
		struct console *con = consoles[i];

		if (ch == '\n')
			con->putc(con, '\r');
		con->putc(con, ch);
	}
}

/* ---- Input: the interrupt's side ------------------------------------ */

bool console_rx_push(struct console *c, char ch)
{
	unsigned long flags = spin_lock(&rx.lock);
	unsigned used = rx.tail - rx.head;
	bool more = true;

	if (used == RX_RING_SIZE) {
		rx.full++;
		spin_unlock(&rx.lock, flags);
		return !c->rx_stop;
	}
	rx.buf[rx.tail++ % RX_RING_SIZE] = ch;
	rx.pushed++;
	if (c->rx_stopped) {
		/* An interrupt that was already pending when we stopped
		 * (the PLIC latches every rising edge): the byte fits in
		 * the reserve, but read no more. */
		more = false;
	} else if (c->rx_stop && RX_RING_SIZE - (used + 1) <= RX_RESERVE) {
		c->rx_stopped = true;
		rx.nr_stopped++;
		rx.stops++;
		c->rx_stop(c);
		more = false;
	}
	spin_unlock(&rx.lock, flags);
	return more;
}

void console_rx_lost(struct console *c, unsigned n)
{
	unsigned long flags = spin_lock(&rx.lock);

	(void)c;
	rx.overrun += n;
	spin_unlock(&rx.lock, flags);
}

/* Any context.  The count check is racy; at worst there are two units,
 * and the reader goes round its loop once more for nothing. */
void console_rx_wake(void)
{
	if (sema_count(&rx_sem) == 0)
		sema_up(&rx_sem);
}

/* ---- Input: the reader's side --------------------------------------- */

/* Start every stopped console once the ring is down to half.  rx.lock. */
static void rx_restart(void)
{
	if (!rx.nr_stopped || rx.tail - rx.head > RX_RING_SIZE / 2)
		return;
	for (int i = 0; i < nr_consoles; i++) {
		struct console *con = consoles[i];

		if (con->rx_stopped) {
			con->rx_stopped = false;
			rx.nr_stopped--;
			con->rx_start(con);
		}
	}
}

static int rx_pop(void)
{
	unsigned long flags;
	int ch = -1;

	if (READ_ONCE(rx.tail) == READ_ONCE(rx.head))
		return -1;		/* the common case, without the lock */
	flags = spin_lock(&rx.lock);
	if (rx.tail != rx.head)
		ch = (unsigned char)rx.buf[rx.head++ % RX_RING_SIZE];
	rx_restart();
	spin_unlock(&rx.lock, flags);
	return ch;
}

bool console_rx_flush_to(char ch)
{
	unsigned long flags = spin_lock(&rx.lock);
	unsigned i = rx.head;
	bool found = false;

	/* Called at every wakeup while typeahead waits: look only at the
	 * bytes that came since the last call (still in the ring). */
	if (rx.scanned - rx.head <= rx.tail - rx.head)
		i = rx.scanned;
	for (; i != rx.tail && !found; i++) {
		if (rx.buf[i % RX_RING_SIZE] == ch) {
			rx.head = i + 1;
			found = true;
		}
	}
	rx.scanned = i;
	if (found)
		rx_restart();
	spin_unlock(&rx.lock, flags);
	return found;
}

int console_getc(void)
{
	int ch = rx_pop();

	if (ch >= 0)
		return ch;
	for (int i = 0; i < nr_consoles; i++) {
		struct console *con = consoles[i];

		if (con->getc && !READ_ONCE(con->rx_irq) &&
		    (ch = con->getc(con)) >= 0)
			return ch;
	}
	return -1;
}

/*
 * Out of the scheduler trace (as sleep_ns_untraced(), trace.h): the
 * reader's wakeups are not what a trace is for, and with a polled
 * console they come every CONSOLE_POLL_NS.
 */
void console_wait(uint64_t timeout_ns)
{
	struct task *self = current();

	if (READ_ONCE(nr_polled) > 0 &&
	    (!timeout_ns || timeout_ns > CONSOLE_POLL_NS))
		timeout_ns = CONSOLE_POLL_NS;
	WRITE_ONCE(self->untraced, true);
	sema_down_timeout(&rx_sem, timeout_ns);
	WRITE_ONCE(self->untraced, false);
}

void console_rx_stats(struct console_rx_stats *st)
{
	unsigned long flags = spin_lock(&rx.lock);

	st->ring_size = RX_RING_SIZE;
	st->pushed = rx.pushed;
	st->stops = rx.stops;
	st->full = rx.full;
	st->overrun = rx.overrun;
	spin_unlock(&rx.lock, flags);
}

void console_rx_report(void)
{
	unsigned long flags = spin_lock(&rx.lock);
	unsigned long full = rx.full, overrun = rx.overrun;
	unsigned long lost = full + overrun - rx.reported;

	rx.reported = full + overrun;
	spin_unlock(&rx.lock, flags);
	if (lost)
		printk("console: %lu input bytes lost (since boot: %lu with "
		       "the input ring of %d full, %lu overrun in the "
		       "device)\n", lost, full, RX_RING_SIZE, overrun);
}
