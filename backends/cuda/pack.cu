/* pack.cu: the deep_copy pack/unpack kernels of the CUDA back end
 * (pack.c), one thread per element in grid-stride loops. Not compiled at
 * run time: gen-pack-ptx.sh turns this file into pack_ptx.h (PTX for
 * compute_75, which the driver finishes for any newer device). */
typedef long sk_i64;
struct pack_desc { sk_i64 n; int rank, es; sk_i64 ext[8], ds[8], ss[8]; };
template <class T> __device__ void mv(char *d, const char *s) {
  *(T *)d = *(const T *)s; }
extern "C" __global__ void sk_pack_copy(char *dst, const char *src,
    const __grid_constant__ pack_desc d) {
  _Pragma("unroll 1") for (sk_i64 t = (sk_i64)blockIdx.x * blockDim.x + threadIdx.x; t < d.n;
       t += (sk_i64)gridDim.x * blockDim.x) {
    sk_i64 r = t, od = 0, os = 0;
    _Pragma("unroll 1") for (int k = 0; k < d.rank; k++) {
      sk_i64 q = r % d.ext[k]; r /= d.ext[k];
      od += q * d.ds[k]; os += q * d.ss[k]; }
    switch (d.es) {
    case 8: mv<unsigned long long>(dst + od * 8, src + os * 8); break;
    case 4: mv<unsigned>(dst + od * 4, src + os * 4); break;
    case 2: mv<unsigned short>(dst + od * 2, src + os * 2); break;
    default: dst[od] = src[os]; break; }
  }
}
extern "C" __global__ void sk_pack_fill(char *dst,
    const __grid_constant__ pack_desc d, unsigned long long cell) {
  _Pragma("unroll 1") for (sk_i64 t = (sk_i64)blockIdx.x * blockDim.x + threadIdx.x; t < d.n;
       t += (sk_i64)gridDim.x * blockDim.x) {
    sk_i64 r = t, od = 0;
    _Pragma("unroll 1") for (int k = 0; k < d.rank; k++) {
      sk_i64 q = r % d.ext[k]; r /= d.ext[k]; od += q * d.ds[k]; }
    const char *s = (const char *)&cell;
    switch (d.es) {
    case 8: mv<unsigned long long>(dst + od * 8, s); break;
    case 4: mv<unsigned>(dst + od * 4, s); break;
    case 2: mv<unsigned short>(dst + od * 2, s); break;
    default: dst[od] = s[0]; break; }
  }
}
