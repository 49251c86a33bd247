/* The benchmark's kernel in C: a transcription of bench/kernel (Fill,
 * Multiply, Checksum, Block), so that the C references compute the same
 * product as the Go variants and print the same checksum. */
#ifndef CAPE_BENCH_MATMUL_H
#define CAPE_BENCH_MATMUL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(int64_t *a, int64_t *b, int64_t len) {
	for (int64_t i = 0; i < len; i++) {
		a[i] = (i * 7 + 3) % 101 - 50;
		b[i] = (i * 13 + 5) % 103 - 51;
	}
}

/* Rows [lo, hi) of C = A×B; the naive triple loop. */
static void multiply(const int64_t *a, const int64_t *b, int64_t *c, int64_t n, int64_t lo, int64_t hi) {
	for (int64_t i = lo; i < hi; i++) {
		for (int64_t j = 0; j < n; j++) {
			int64_t s = 0;
			for (int64_t k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
	}
}

static uint64_t checksum(const int64_t *c, int64_t len) {
	uint64_t h = 14695981039346656037ULL;
	for (int64_t i = 0; i < len; i++) {
		h ^= (uint64_t)c[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The static block split of cape's Region.Static. */
static void block(int64_t count, int64_t rank, int64_t size, int64_t *lo, int64_t *hi) {
	int64_t q = count / size, rem = count % size;
	*lo = rank * q + (rank < rem ? rank : rem);
	*hi = *lo + q + (rank < rem ? 1 : 0);
}

static int64_t parse_n(int argc, char **argv) {
	int64_t n = 512;
	for (int i = 1; i + 1 < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] == 'n' && argv[i][2] == 0)
			n = atoll(argv[i + 1]);
	if (n < 1) {
		fprintf(stderr, "matmul: -n must be positive\n");
		exit(2);
	}
	return n;
}

static int64_t *alloc(int64_t len) {
	int64_t *p = calloc((size_t)len, sizeof(int64_t));
	if (!p) {
		fprintf(stderr, "matmul: out of memory\n");
		exit(1);
	}
	return p;
}

#endif
