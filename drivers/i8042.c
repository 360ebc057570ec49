/*
 * i8042.c - PS/2 keyboard through the i8042 controller: polled, then by
 * IRQ 1 once the arch has routed it (i8042_irq_on()).
 *
 * The firmware leaves the controller translating the keyboard's codes
 * to scan code set 1 (checked, and turned on if it is off), so a key
 * press is one byte (0x80 added on release), some keys behind a 0xe0
 * prefix.  translate() turns them into ASCII with Shift, Caps Lock and Ctrl
 * (Ctrl-C is 0x03, which the shell reads as "stop"); keys with no
 * character (arrows, F-keys, Alt) are dropped.  Bytes from the second
 * port (a PS/2 mouse: status bit 5) are read and thrown away so that
 * they cannot block the keyboard's.
 *
 * No interrupts: the shell polls console_getc() every few ms, and the
 * controller holds a byte (and the keyboard its own buffer of
 * keystrokes) until it is read.
 */
#include "kernel.h"
#include "errno.h"
#include "i8042.h"

#define DATA_PORT 0x60
#define STATUS_PORT 0x64		/* read: status; write: command */

#define ST_OUT_FULL 0x01		/* a byte waits at DATA_PORT */
#define ST_IN_FULL 0x02			/* the controller is busy */
#define ST_AUX 0x20			/* the byte is from the mouse port */

#define CMD_READ_CONFIG 0x20
#define CMD_WRITE_CONFIG 0x60
#define CMD_ENABLE_KBD 0xae
#define CONFIG_KBD_IRQ 0x01	/* IRQ 1 when the keyboard's byte waits */
#define CONFIG_TRANSLATE 0x40

/* A controller answers within microseconds; this many status reads is
 * far beyond that and still a bounded wait where it does not. */
#define POLL_LIMIT 100000

/* Scan code set 1 (US layout) to ASCII, unshifted and with Shift. */
static const char keymap[0x3a] = {
	0, 27, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=',
	'\b', '\t', 'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[',
	']', '\r', 0, 'a', 's', 'd', 'f', 'g', 'h', 'j', 'k', 'l', ';',
	'\'', '`', 0, '\\', 'z', 'x', 'c', 'v', 'b', 'n', 'm', ',', '.',
	'/', 0, '*', 0, ' ',
};
static const char keymap_shift[0x3a] = {
	0, 27, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+',
	'\b', '\t', 'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{',
	'}', '\r', 0, 'A', 'S', 'D', 'F', 'G', 'H', 'J', 'K', 'L', ':',
	'"', '~', 0, '|', 'Z', 'X', 'C', 'V', 'B', 'N', 'M', '<', '>',
	'?', 0, '*', 0, ' ',
};

enum {
	SC_CTRL = 0x1d,
	SC_LSHIFT = 0x2a,
	SC_RSHIFT = 0x36,
	SC_CAPS = 0x3a,
	SC_KP_ENTER = 0x1c,		/* after 0xe0 */
	SC_KP_SLASH = 0x35,		/* after 0xe0 */
	SC_RELEASE = 0x80,
};

static bool wait_status(struct i8042 *k, uint8_t mask, bool set)
{
	for (int i = 0; i < POLL_LIMIT; i++)
		if (!!(k->pio_read(STATUS_PORT) & mask) == set)
			return true;
	return false;
}

static bool command(struct i8042 *k, uint8_t cmd)
{
	if (!wait_status(k, ST_IN_FULL, false))
		return false;
	k->pio_write(STATUS_PORT, cmd);
	return true;
}

/* Drop the bytes waiting (keys typed before we listened): one left
 * would be read as the configuration byte. */
static void drop_output(struct i8042 *k)
{
	for (int i = 0; i < 64 && (k->pio_read(STATUS_PORT) & ST_OUT_FULL); i++)
		k->pio_read(DATA_PORT);
}

/* The controller's configuration byte, or -1 if it does not answer. */
static int read_config(struct i8042 *k)
{
	drop_output(k);
	if (!command(k, CMD_READ_CONFIG) || !wait_status(k, ST_OUT_FULL, true))
		return -1;
	return k->pio_read(DATA_PORT);
}

static bool write_config(struct i8042 *k, uint8_t config)
{
	if (!command(k, CMD_WRITE_CONFIG) || !wait_status(k, ST_IN_FULL, false))
		return false;
	k->pio_write(DATA_PORT, config);
	return true;
}

/* One set-1 byte @sc: the character it types, or -1. */
static int translate(struct i8042 *k, uint8_t sc)
{
	bool release = sc & SC_RELEASE;
	bool e0 = k->e0;
	bool shift;
	char ch;

	k->e0 = false;
	if (k->skip) {			/* the rest of Pause: e1 1d 45 e1 9d c5 */
		k->skip--;
		return -1;
	}
	if (sc == 0xe0) {
		k->e0 = true;
		return -1;
	}
	if (sc == 0xe1) {
		k->skip = 5;
		return -1;
	}
	sc &= ~SC_RELEASE;
	if (sc == SC_CTRL) {		/* left, or right after 0xe0 */
		k->ctrl = !release;
		return -1;
	}
	if (e0) {
		/* 0xe0 0x2a / 0xb6 are fake shifts around some keys:
		 * ignored, as every key behind 0xe0 but these two. */
		if (release)
			return -1;
		if (sc == SC_KP_ENTER)
			return '\r';
		if (sc == SC_KP_SLASH)
			return '/';
		return -1;
	}
	if (sc == SC_LSHIFT || sc == SC_RSHIFT) {
		*(sc == SC_LSHIFT ? &k->shift_l : &k->shift_r) = !release;
		return -1;
	}
	if (release)
		return -1;
	if (sc == SC_CAPS) {
		k->caps = !k->caps;
		return -1;
	}
	if (sc >= sizeof(keymap))
		return -1;
	shift = k->shift_l || k->shift_r;
	ch = shift ? keymap_shift[sc] : keymap[sc];
	if (ch >= 'a' && ch <= 'z' && k->caps)
		ch -= 'a' - 'A';
	else if (ch >= 'A' && ch <= 'Z' && k->caps)
		ch += 'a' - 'A';
	if (!ch)
		return -1;
	if (k->ctrl) {
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
			return ch & 0x1f;	/* Ctrl-C: 0x03 */
		return -1;
	}
	return (unsigned char)ch;
}

/* The next character typed, or -1: reads the bytes waiting (modifier
 * keys, releases) until one of them types something, at most 16.  The
 * controller holds one byte at a time: -2 when none is left. */
static int next_char(struct i8042 *k)
{
	for (int i = 0; i < 16; i++) {
		uint8_t st = k->pio_read(STATUS_PORT);
		uint8_t b;
		int ch;

		if (!(st & ST_OUT_FULL))
			return -2;
		b = k->pio_read(DATA_PORT);
		if (st & ST_AUX)
			continue;		/* the mouse's */
		ch = translate(k, b);
		if (ch >= 0)
			return ch;
	}
	return -1;
}

static int i8042_getc(struct console *con)
{
	int ch = next_char(con->priv);

	return ch < 0 ? -1 : ch;
}

/* IRQ 1: every byte waiting, what it types into the console's ring.
 * The line is an edge, raised when a byte arrives: one left behind
 * would raise no new edge, so read until the controller is empty.  A
 * full ring drops what was typed (counted; a keyboard cannot be held
 * back, and nobody types 4 KiB ahead). */
void i8042_irq(struct i8042 *k)
{
	int ch, n = 0;

	while ((ch = next_char(k)) != -2) {
		if (ch >= 0) {
			console_rx_push(&k->con, (char)ch);
			n++;
		}
	}
	if (n)
		console_rx_wake();
}

int i8042_irq_on(struct i8042 *k)
{
	int config = read_config(k);

	if (config < 0 || !write_config(k, (uint8_t)config | CONFIG_KBD_IRQ))
		return -EIO;
	console_rx_irq_on(&k->con);
	i8042_irq(k);		/* what waits already: its edge came before */
	return 0;
}

/* Input only: what is printed goes to the screen console. */
static void i8042_putc(struct console *con, char ch)
{
	(void)con;
	(void)ch;
}

int i8042_init(struct i8042 *k)
{
	uint8_t st = k->pio_read(STATUS_PORT);
	int config;

	/* No device decodes the port: the bus floats to all ones.  (Many
	 * newer PCs have no i8042 at all.) */
	if (st == 0xff) {
		printk("console: no i8042 keyboard controller (status port "
		       "reads 0xff)\n");
		return -ENODEV;
	}
	/* What was typed at the firmware's and GRUB's prompts is dropped
	 * (read_config()). */
	config = read_config(k);
	if (config < 0) {
		printk("console: i8042 keyboard controller does not answer "
		       "(status 0x%x); no keyboard\n", st);
		return -ENODEV;
	}
	if (!(config & CONFIG_TRANSLATE)) {
		/* Set 2 codes would be garbage to the set-1 table. */
		printk("console: i8042 translation was off; turning it on\n");
		write_config(k, (uint8_t)config | CONFIG_TRANSLATE);
	}
	command(k, CMD_ENABLE_KBD);
	k->con.name = "i8042";
	k->con.putc = i8042_putc;
	k->con.getc = i8042_getc;
	k->con.priv = k;
	console_register(&k->con);
	printk("console: i8042 PS/2 keyboard (i8042)\n");
	return 0;
}
