// Indirect calls: virtual functions (objects made with device new, dispatched per lane) and tables of
// function pointers. Regenerate: nvcc -ptx -arch=compute_75 -O2 indirect.cu -o indirect.ptx
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float scaled(float s) const { return s * area(); }   // calls a virtual function
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float a;
  __device__ explicit Square(float a) : a(a) {}
  __device__ float area() const override { return a * a; }
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.0f * r * r; }
  __device__ float scaled(float s) const override { return -s * area(); }
};
struct Triangle : Square {
  __device__ explicit Triangle(float a) : Square(a) {}
  __device__ float area() const override { return 0.5f * a * a; }
};

typedef float (*binop)(float, float);
__device__ float add(float a, float b) { return a + b; }
__device__ float sub(float a, float b) { return a - b; }
__device__ float mul(float a, float b) { return a * b; }
__device__ binop ops[3] = {add, sub, mul};

// Lane i makes a Circle (i % 3 == 0), a Square (1) or a Triangle (2) and reports scaled(2).
extern "C" __global__ void shapes(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Shape *s;
  if (i % 3 == 0) s = new Circle(in[i]);
  else if (i % 3 == 1) s = new Square(in[i]);
  else s = new Triangle(in[i]);
  out[i] = s->scaled(2.0f);
  delete s;
}

// Lane i applies ops[i % 3] to (in[i], 3).
extern "C" __global__ void table(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ops[i % 3](in[i], 3.0f);
}

// A function pointer from the host (read from `ops` with cudaMemcpyFromSymbol, or any integer).
extern "C" __global__ void through(float *out, const float *in, int n, binop f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i], 3.0f);
}
