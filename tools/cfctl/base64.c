// SPDX-License-Identifier: GPL-2.0
/*
 * cfctl: base64 (RFC 4648, standard alphabet, with padding), for the
 * table lines of `cfctl save`.
 */
#include <string.h>

#include "cfctl.h"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t b64_enc_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void b64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];

		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = b64[(v >> 6) & 63];
		*out++ = b64[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;

		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;

		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = b64[(v >> 6) & 63];
		*out++ = '=';
	}
	*out = 0;
}

static int b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long b64_decode(const char *in, size_t n, uint8_t *out)
{
	size_t i, o = 0, pad = 0;

	if (n % 4)
		return -1;
	if (n && in[n - 1] == '=')
		pad++;
	if (n > 1 && in[n - 2] == '=')
		pad++;
	for (i = 0; i < n; i += 4) {
		int a = b64_val((unsigned char)in[i]);
		int b = b64_val((unsigned char)in[i + 1]);
		int c, d;
		bool tail = i + 4 == n;

		if (a < 0 || b < 0)
			return -1;
		if (tail && pad == 2) {
			if (in[i + 2] != '=' || (b & 15))
				return -1;
			out[o++] = (uint8_t)(a << 2 | b >> 4);
			break;
		}
		c = b64_val((unsigned char)in[i + 2]);
		if (c < 0)
			return -1;
		if (tail && pad == 1) {
			if (c & 3)
				return -1;
			out[o++] = (uint8_t)(a << 2 | b >> 4);
			out[o++] = (uint8_t)((b & 15) << 4 | c >> 2);
			break;
		}
		d = b64_val((unsigned char)in[i + 3]);
		if (d < 0)
			return -1;
		out[o++] = (uint8_t)(a << 2 | b >> 4);
		out[o++] = (uint8_t)((b & 15) << 4 | c >> 2);
		out[o++] = (uint8_t)((c & 3) << 6 | d);
	}
	return (long)o;
}
