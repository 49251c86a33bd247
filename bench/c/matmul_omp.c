/* The OpenMP reference of the CAPE paper's Table I: the same product with the
 * row loop under `#pragma omp parallel for schedule(static)`. Built by
 * cape bench with gcc -O2 -fopenmp. Prints the same two lines as
 * examples/matmul; the timed span is the parallel loop. */
#include <omp.h>

#include "matmul.h"

int main(int argc, char **argv) {
	int64_t n = parse_n(argc, argv);
	int64_t *a = alloc(n * n), *b = alloc(n * n), *c = alloc(n * n);
	fill(a, b, n * n);

	double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < n; i++)
		multiply(a, b, c, n, i, i + 1);
	double t1 = omp_get_wtime();

	printf("matmul n=%lld checksum=%016llx\n", (long long)n, (unsigned long long)checksum(c, n * n));
	fprintf(stderr, "matmul: parallel part %.3fs on %d thread(s)\n", t1 - t0, omp_get_max_threads());
	free(a), free(b), free(c);
	return 0;
}
