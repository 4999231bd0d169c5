// SPDX-License-Identifier: GPL-2.0
/*
 * Record the kernel's own jhash() on a fixed set of inputs, so that the
 * userspace twin kmod/cf_jhash.h can be checked against it bit for bit.
 *
 * For each length len in 0..40, 64 and 100, and each initval in
 * JHASH_VECTORS_INITVALS, the key is
 *
 *	key[i] = (i * 37 + len * 11 + 5) & 0xff,	0 <= i < len
 *
 * and one line is logged:
 *
 *	jhash-vector: <len> <initval %08x> <key hex or -> <hash %08x>
 *
 * followed by "jhash-vector: done <count>".  Loading always fails with
 * -EAGAIN once the lines are out: the module never stays loaded.
 */
#define pr_fmt(fmt) "jhash-vector: " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/jhash.h>

#define JHASH_VECTORS_MAXLEN	100

static const u32 jhash_vectors_initvals[] __initconst = {
	0, 1, 0xdeadbeef, 0x9e3779b9,
};

static const u32 jhash_vectors_extra_lens[] __initconst = { 64, 100 };

static u8 jhash_vectors_key[JHASH_VECTORS_MAXLEN] __initdata;
static char jhash_vectors_hex[2 * JHASH_VECTORS_MAXLEN + 1] __initdata;

static unsigned int __init jhash_vectors_len(u32 len)
{
	unsigned int n = 0;
	u32 i;

	for (i = 0; i < len; i++)
		jhash_vectors_key[i] = (i * 37 + len * 11 + 5) & 0xff;
	if (len) {
		*bin2hex(jhash_vectors_hex, jhash_vectors_key, len) = '\0';
	} else {
		jhash_vectors_hex[0] = '-';
		jhash_vectors_hex[1] = '\0';
	}

	for (i = 0; i < ARRAY_SIZE(jhash_vectors_initvals); i++) {
		u32 iv = jhash_vectors_initvals[i];

		pr_info("%u %08x %s %08x\n", len, iv, jhash_vectors_hex,
			jhash(jhash_vectors_key, len, iv));
		n++;
	}
	return n;
}

static int __init jhash_vectors_init(void)
{
	unsigned int n = 0;
	u32 len, i;

	for (len = 0; len <= 40; len++)
		n += jhash_vectors_len(len);
	for (i = 0; i < ARRAY_SIZE(jhash_vectors_extra_lens); i++)
		n += jhash_vectors_len(jhash_vectors_extra_lens[i]);
	pr_info("done %u\n", n);

	return -EAGAIN;
}

module_init(jhash_vectors_init);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("nf_cuckoo developers");
MODULE_DESCRIPTION("Record jhash() test vectors for nf_cuckoo");
