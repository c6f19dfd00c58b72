// Rodinia 3.1 lavaMD (CUDA): particle potential and forces in a 3D grid of boxes, 100 particles
// per box, one 128-thread block per home box. The block stages its particles, then for the home box
// and each neighbour box stages that box's positions and charges in shared memory; every thread
// accumulates into its particles' force vectors in global memory (`fA[wtx].v += ...`) as the
// original does. Only shared memory is touched inside the particle loop, so nvcc keeps the four
// accumulators in registers there: one global load and store of each per neighbour box.
// Scalar kernel arguments stand in for the original's by-value par/dim structs (no memory traffic).
#define NUMBER_PAR_PER_BOX 100
#define NUMBER_THREADS 128
#define DOT(A, B) ((A.x) * (B.x) + (A.y) * (B.y) + (A.z) * (B.z))

struct four_vector { double v, x, y, z; };
struct nei_str { int x, y, z, number; long offset; };
struct box_str { int x, y, z, number; long offset; int nn; nei_str nei[26]; };

extern "C" __global__ void kernel_gpu_cuda(double alpha, long number_boxes, box_str *d_box_gpu,
                                           four_vector *d_rv_gpu, double *d_qv_gpu, four_vector *d_fv_gpu)
{
    int bx = blockIdx.x, tx = threadIdx.x, wtx = tx;
    if (bx < number_boxes) {
        double a2 = 2.0 * alpha * alpha;
        __shared__ four_vector rA_shared[100];
        __shared__ four_vector rB_shared[100];
        __shared__ double qB_shared[100];
        int first_i = d_box_gpu[bx].offset;
        four_vector *rA = &d_rv_gpu[first_i];
        four_vector *fA = &d_fv_gpu[first_i];
        while (wtx < NUMBER_PAR_PER_BOX) {
            rA_shared[wtx] = rA[wtx];
            wtx = wtx + NUMBER_THREADS;
        }
        wtx = tx;
        __syncthreads();
        for (int k = 0; k < 1 + d_box_gpu[bx].nn; k++) {
            int pointer = (k == 0) ? bx : d_box_gpu[bx].nei[k - 1].number;
            int first_j = d_box_gpu[pointer].offset;
            four_vector *rB = &d_rv_gpu[first_j];
            double *qB = &d_qv_gpu[first_j];
            while (wtx < NUMBER_PAR_PER_BOX) {
                rB_shared[wtx] = rB[wtx];
                qB_shared[wtx] = qB[wtx];
                wtx = wtx + NUMBER_THREADS;
            }
            wtx = tx;
            __syncthreads();
            while (wtx < NUMBER_PAR_PER_BOX) {
                for (int j = 0; j < NUMBER_PAR_PER_BOX; j++) {
                    double r2 = rA_shared[wtx].v + rB_shared[j].v - DOT(rA_shared[wtx], rB_shared[j]);
                    double u2 = a2 * r2;
                    double vij = exp(-u2);
                    double fs = 2 * vij;
                    double dx = rA_shared[wtx].x - rB_shared[j].x;
                    double dy = rA_shared[wtx].y - rB_shared[j].y;
                    double dz = rA_shared[wtx].z - rB_shared[j].z;
                    fA[wtx].v += qB_shared[j] * vij;
                    fA[wtx].x += qB_shared[j] * (fs * dx);
                    fA[wtx].y += qB_shared[j] * (fs * dy);
                    fA[wtx].z += qB_shared[j] * (fs * dz);
                }
                wtx = wtx + NUMBER_THREADS;
            }
            wtx = tx;
            __syncthreads();
        }
    }
}
