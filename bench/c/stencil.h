/* The stencil benchmark's kernel in C: a transcription of bench/stencilkernel
 * (Init, Sweep, Line, Rows), so that the C reference computes every point of
 * examples/stencil's grid with the same operations in the same order and
 * prints the same line. Compile with -ffp-contract=off: a fused multiply-add
 * would change the bits of the weighted sum. */
#ifndef CAPE_BENCH_STENCIL_H
#define CAPE_BENCH_STENCIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void stencil_init(double *u, double *v, int64_t size) {
	for (int64_t j = 0; j < size; j++)
		u[j] = v[j] = 1; /* the hot top edge */
}

/* Rows [lo, hi) of v from u; returns the largest change. */
static double sweep(const double *u, double *v, int64_t size, int64_t lo, int64_t hi) {
	double diff = 0;
	for (int64_t i = lo; i < hi; i++) {
		for (int64_t j = 1; j < size - 1; j++) {
			int64_t k = i * size + j;
			double x = 0.25 * (u[k - size] + u[k + size] + u[k - 1] + u[k + 1]);
			double d = fabs(x - u[k]);
			diff = d > diff ? d : diff;
			v[k] = x;
		}
	}
	return diff;
}

/* The line examples/stencil prints. */
static void print_line(const double *u, int64_t size, int64_t iters, double diff) {
	double sum = 0, weighted = 0;
	uint64_t hash = 14695981039346656037ULL;
	for (int64_t i = 0; i < size; i++) {
		for (int64_t j = 0; j < size; j++) {
			double x = u[i * size + j];
			uint64_t bits;
			memcpy(&bits, &x, sizeof bits);
			sum += x;
			weighted += x * (double)(i + 1);
			hash ^= bits;
			hash *= 1099511628211ULL;
		}
	}
	printf("n=%lld iters=%lld sum=%.9f weighted=%.9f last-diff=%.3e hash=%016llx\n", (long long)size, (long long)iters, sum,
	       weighted, diff, (unsigned long long)hash);
}

/* The interior rows [lo, hi) part p of parts owns: the static split of the
 * example's loop for i := 1; i < size-1. */
static void rows(int64_t size, int64_t p, int64_t parts, int64_t *lo, int64_t *hi) {
	int64_t count = size - 2, q = count / parts, rem = count % parts;
	*lo = p * q + (p < rem ? p : rem);
	*hi = *lo + q + (p < rem ? 1 : 0);
	*lo += 1, *hi += 1;
}

/* The value of flag name (e.g. "-n") in argv, or def. */
static int64_t int_flag(int argc, char **argv, const char *name, int64_t def) {
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return atoll(argv[i + 1]);
	return def;
}

static double *alloc_grid(int64_t len) {
	double *p = calloc((size_t)len, sizeof(double));
	if (!p) {
		fprintf(stderr, "stencil: out of memory\n");
		exit(1);
	}
	return p;
}

#endif
