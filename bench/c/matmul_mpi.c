/* The MPI reference of the CAPE paper's Figs. 4-6: every rank fills A and B,
 * computes its static block of rows, and MPI_Allgatherv leaves C on every
 * rank (CAPE's semantics: every node ends with the region's result). Built
 * by cape bench with mpicc -O2. The timed span, reported by rank 0, is from
 * before the product to the end of the Allgatherv. */
#include <mpi.h>

#include "matmul.h"

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t n = parse_n(argc, argv);
	int64_t *a = alloc(n * n), *b = alloc(n * n), *c = alloc(n * n);
	fill(a, b, n * n);
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
	for (int r = 0; r < size; r++) {
		int64_t lo, hi;
		block(n, r, size, &lo, &hi);
		counts[r] = (int)((hi - lo) * n);
		displs[r] = (int)(lo * n);
	}
	int64_t lo, hi;
	block(n, rank, size, &lo, &hi);
	MPI_Barrier(MPI_COMM_WORLD);

	double t0 = MPI_Wtime();
	multiply(a, b, c, n, lo, hi);
	MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c, counts, displs, MPI_INT64_T, MPI_COMM_WORLD);
	double t1 = MPI_Wtime();

	if (rank == 0) {
		printf("matmul n=%lld checksum=%016llx\n", (long long)n, (unsigned long long)checksum(c, n * n));
		fprintf(stderr, "matmul: parallel part %.3fs on %d rank(s)\n", t1 - t0, size);
	}
	free(a), free(b), free(c), free(counts), free(displs);
	MPI_Finalize();
	return 0;
}
