/* The MPI reference of cape bench stencil: the Jacobi iterations of
 * examples/stencil on block rows, exchanging only the halo rows with
 * MPI_Sendrecv, reducing the largest change to rank 0 with MPI_Reduce every
 * iteration, and gathering the grid on rank 0 at the end (MPI_Gatherv), which
 * prints the example's line. Built by cape bench with mpicc -O2
 * -ffp-contract=off. The timed span, reported by rank 0, is from before the
 * first iteration (after a barrier) to the end of the gather. Every rank
 * reports, like bench/baselines/halogo, its compute and communication times
 * and the bytes it handed to MPI per iteration. */
#include <mpi.h>

#include "stencil.h"

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, nranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int64_t size = int_flag(argc, argv, "-n", 256), iters = int_flag(argc, argv, "-iters", 100);
	if (size < 3)
		size = 3;
	if (iters < 0 || size - 2 < nranks || size * size > 0x7fffffff) {
		if (rank == 0)
			fprintf(stderr, "stencil: bad size %lld or iterations %lld for %d ranks\n", (long long)size, (long long)iters, nranks);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	double *u = alloc_grid(size * size), *v = alloc_grid(size * size);
	stencil_init(u, v, size);
	int64_t lo, hi;
	rows(size, rank, nranks, &lo, &hi);
	int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
	int *counts = malloc(sizeof(int) * nranks), *displs = malloc(sizeof(int) * nranks);
	for (int r = 0; r < nranks; r++) {
		int64_t a, b;
		rows(size, r, nranks, &a, &b);
		counts[r] = (int)((b - a) * size);
		displs[r] = (int)(a * size);
	}
	int64_t row = size * (int64_t)sizeof(double), sent = 0, recvd = 0;
	double diff = 0, compute = 0;
	MPI_Barrier(MPI_COMM_WORLD);

	double t0 = MPI_Wtime();
	for (int64_t it = 0; it < iters; it++) {
		double tc = MPI_Wtime();
		double d = sweep(u, v, size, lo, hi);
		compute += MPI_Wtime() - tc;
		MPI_Sendrecv(v + lo * size, (int)size, MPI_DOUBLE, up, 0, v + hi * size, (int)size, MPI_DOUBLE, down, 0,
		             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(v + (hi - 1) * size, (int)size, MPI_DOUBLE, down, 1, v + (lo - 1) * size, (int)size, MPI_DOUBLE, up, 1,
		             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sent += (up != MPI_PROC_NULL) * row + (down != MPI_PROC_NULL) * row;
		recvd += (up != MPI_PROC_NULL) * row + (down != MPI_PROC_NULL) * row;
		double *t = u;
		u = v, v = t;
		MPI_Reduce(&d, &diff, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (rank == 0)
			recvd += 8 * (int64_t)(nranks - 1);
		else
			sent += 8;
	}
	if (rank == 0)
		MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, u, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	else
		MPI_Gatherv(u + lo * size, counts[rank], MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	double t1 = MPI_Wtime();

	if (rank == 0) {
		print_line(u, size, iters, diff);
		fprintf(stderr, "stencil: iterations %.6fs on %d rank(s)\n", t1 - t0, nranks);
	}
	int64_t per = iters > 0 ? iters : 1;
	fprintf(stderr, "halo-c: rank %d: compute %.6fs, communication %.6fs; per iteration sent %lld, received %lld bytes\n", rank,
	        compute, t1 - t0 - compute, (long long)(sent / per), (long long)(recvd / per));
	free(u), free(v), free(counts), free(displs);
	MPI_Finalize();
	return 0;
}
