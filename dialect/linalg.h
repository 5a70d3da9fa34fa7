/* linalg.h: dense linear algebra on one matrix, callable from any kernel
 * body (seed 000 section 3.2, Kokkos Kernels' batched interface), on
 * every back end: the host (tcc and gcc) and the GPU.
 *
 * A matrix is an 'sk_mat' (float64) or 'sk_matf' (float32): a pointer,
 * its extents 'm' x 'n' and the strides of a row and of a column step, in
 * elements, so a transposed matrix is the same memory with 'rs' and 'cs'
 * swapped and no layout is special. matrix(A, b) is entry b of a rank-3
 * capture (batch, rows, cols) -- or of a SIMD-packed rank-4 one (groups,
 * rows, cols, width), entry b in lane b % width --, matrix(A) a rank-2 capture,
 * matrix_scratch(team, level, rows, cols) a float64 matrix in team scratch.
 *
 * Operations, at three levels (seed 000 section 3.2):
 *   serial_X(...)            one thread does all the work
 *   team_X(team, ...)        the team's members share it (TEAM_FOR)
 *   teamvector_X(team, ...)  members and their vector lanes share it
 * X: gemm trsm trmm trtri lu getrf getrs gesv potrf. Every team_ and
 * teamvector_ call must be made by every member of the team and ends with
 * a team barrier, so calls can follow each other. Chars as in BLAS:
 * trans 'N' 'T' 'C', side 'L' 'R', uplo 'U' 'L', diag 'N' 'U'.
 * Factorisations return LAPACK's info: 0, or k + 1 where pivot k is zero
 * (lu, getrf, trtri) or not positive or not finite (potrf, which leaves
 * the failed pivot in A(k, k) as LAPACK does, to tell NaN from negative);
 * the matrix is then left as far as the factorisation got. beta = 0 overwrites C even where it holds
 * NaN (the BLAS rule); alpha = 0 does not read A or B.
 *
 * The operations are written once, for a type T, as macros expanded for
 * double and float; C picks the instance with _Generic, C++ (a GPU's compiler) with
 * overloads of the same names.
 */
#ifndef SK_DIALECT_LINALG_H
#define SK_DIALECT_LINALG_H

typedef struct sk_mat {
  double *data;
  sk_i64 m, n, rs, cs;
} sk_mat;
typedef struct sk_matf {
  float *data;
  sk_i64 m, n, rs, cs;
} sk_matf;

#if defined(SK__DEVICE)   /* a device back end's header: C++, lanes are threads */
#define SK__LA_DEV 1
#define SK__LA static __device__ inline
#define SK__LA_TEAM const sk__team_t &team
#define SK__LANE0 (team.lane == 0)
#define SK__FMA_d(a, b, c) fma((a), (b), (c))
#define SK__FMA_f(a, b, c) fmaf((a), (b), (c))
#else
#define SK__LA static inline __attribute__((unused))
#define SK__LA_TEAM sk__team_t team
#define SK__LANE0 1
#if defined(__TINYC__)
double fma(double, double, double);
float fmaf(float, float, float);
#define SK__FMA_d(a, b, c) fma((a), (b), (c))
#define SK__FMA_f(a, b, c) fmaf((a), (b), (c))
#else
#define SK__FMA_d(a, b, c) __builtin_fma((a), (b), (c))
#define SK__FMA_f(a, b, c) __builtin_fmaf((a), (b), (c))
#endif
#endif

/* a * b + c rounded once, the same on every host tier (tcc: libm's fma,
 * registered by backends/host/symbols.c), so packed and unpacked, JIT and
 * precompiled kernels agree bit for bit; a GPU's compiler contracts it */
#if defined(SK__LA_DEV)
#define sk_fma(a, b, c) ((a) * (b) + (c))
#elif defined(__TINYC__)
double fma(double, double, double);
float fmaf(float, float, float);
#define sk_fma(a, b, c) _Generic((c), float: fmaf, default: fma)((a), (b), (c))
#else
#define sk_fma(a, b, c)                                                        \
  _Generic((c), float: __builtin_fmaf, default: __builtin_fma)((a), (b), (c))
#endif

/* the columns of C serial_gemm's chains run side by side: 8 on a host, 1
 * on a GPU (a thread's registers are its occupancy there) */
#if defined(SK__LA_DEV)
#define SK__GEMM_W 1
#else
#define SK__GEMM_W 8
#endif

/* element (i, j) of matrix a, an lvalue */
#define sk_at(a, i, j) ((a).data[(sk_i64)(i) * (a).rs + (sk_i64)(j) * (a).cs])

/* -- the per-type operations ----------------------------------------------
 * SK__LA_OPS(T, M, S): T the element type, M its matrix type, S the suffix
 * of the instance (d, f). op(A) with trans 'N' is A, otherwise A^T (real
 * types: 'C' is 'T'). */
#define SK__LA_OPS(T, M, S)                                                    \
  SK__LA M sk_mat_make_##S(T *p, sk_i64 m, sk_i64 n, sk_i64 rs, sk_i64 cs) {   \
    M a;                                                                       \
    a.data = p; a.m = m; a.n = n; a.rs = rs; a.cs = cs;                        \
    return a;                                                                  \
  }                                                                            \
  SK__LA M sk_mat_t_##S(M a) { /* the transpose: same memory */                \
    return sk_mat_make_##S(a.data, a.n, a.m, a.cs, a.rs);                      \
  }                                                                            \
  SK__LA M sk_mat_op_##S(int trans, M a) {                                     \
    return trans == 'N' || trans == 'n' ? a : sk_mat_t_##S(a);                 \
  }                                                                            \
  SK__LA M sk_mat_sub_##S(M a, sk_i64 i, sk_i64 j, sk_i64 m, sk_i64 n) {       \
    return sk_mat_make_##S(a.data + i * a.rs + j * a.cs, m, n, a.rs, a.cs);    \
  }                                                                            \
  /* C(i, j) for the rows i of C in [i0, i1) and columns in [j0, j1): each \
   * element the fma chain over p from 0, then alpha s (+ beta c); on a host \
   * SK__GEMM_W columns of a row at a time, their chains side by side (one   \
   * chain alone waits out each fma's latency: batched gemm at 20x20 ran at  \
   * a quarter of 16x16's rate) -- the same sums, bit for bit */             \
  SK__LA void sk__gemm_blk_##S(T alpha, M A, M B, T beta, M C, sk_i64 i0,      \
                               sk_i64 i1, sk_i64 j0, sk_i64 j1) {              \
    sk_i64 k = A.n;                                                            \
    for (sk_i64 r = i0; r < i1; r++) {                                         \
      sk_i64 c = j0;                                                           \
      for (; SK__GEMM_W > 1 && c + SK__GEMM_W <= j1; c += SK__GEMM_W) {        \
        T s[SK__GEMM_W > 1 ? SK__GEMM_W : 1];                                  \
        for (int l = 0; l < SK__GEMM_W; l++) s[l] = 0;                         \
        if (alpha != 0 && B.cs == 1) /* B's rows contiguous: a vector */     \
          for (sk_i64 p = 0; p < k; p++) {                                     \
            const T a_ = sk_at(A, r, p), *b_ = &sk_at(B, p, c);                \
            for (int l = 0; l < SK__GEMM_W; l++)                               \
              s[l] = SK__FMA_##S(a_, b_[l], s[l]);                             \
          }                                                                    \
        else if (alpha != 0)                                                   \
          for (sk_i64 p = 0; p < k; p++) {                                     \
            const T a_ = sk_at(A, r, p);                                       \
            for (int l = 0; l < SK__GEMM_W; l++)                               \
              s[l] = SK__FMA_##S(a_, sk_at(B, p, c + l), s[l]);                \
          }                                                                    \
        for (int l = 0; l < SK__GEMM_W; l++)                                   \
          sk_at(C, r, c + l) = beta == 0 ? alpha * s[l]                        \
                                         : alpha * s[l] + beta * sk_at(C, r, c + l); \
      }                                                                        \
      for (; c < j1; c++) {                                                    \
        T s = 0;                                                               \
        if (alpha != 0)                                                        \
          for (sk_i64 p = 0; p < k; p++)                                       \
            s = SK__FMA_##S(sk_at(A, r, p), sk_at(B, p, c), s);                \
        sk_at(C, r, c) = beta == 0 ? alpha * s : alpha * s + beta * sk_at(C, r, c); \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  SK__LA void serial_gemm_##S(int ta, int tb, T alpha, M A, M B, T beta, M C) {\
    sk__gemm_blk_##S(alpha, sk_mat_op_##S(ta, A), sk_mat_op_##S(tb, B), beta,  \
                     C, 0, C.m, 0, C.n);                                       \
  }                                                                            \
  /* the triangular operations reduce to side 'L', trans 'N': op(A) is A     \
   * with uplo flipped by a transpose, side 'R' is the transposed problem */   \
  SK__LA int sk__tri_norm_##S(int side, int uplo, int trans, M *A, M *B) {     \
    int lower = uplo == 'L' || uplo == 'l';                                    \
    if (!(trans == 'N' || trans == 'n')) { *A = sk_mat_t_##S(*A); lower = !lower; } \
    if (side == 'R' || side == 'r') {                                          \
      *A = sk_mat_t_##S(*A); lower = !lower; *B = sk_mat_t_##S(*B);            \
    }                                                                          \
    return lower;                                                              \
  }                                                                            \
  /* column c of B: solve A x = alpha b in place (A lower or upper) */         \
  SK__LA void sk__trsv_col_##S(int lower, int unit, T alpha, M A, M B, sk_i64 c) { \
    sk_i64 m = B.m;                                                            \
    if (lower) {                                                               \
      for (sk_i64 r = 0; r < m; r++) {                                         \
        T s = alpha * sk_at(B, r, c);                                          \
        for (sk_i64 p = 0; p < r; p++) s -= sk_at(A, r, p) * sk_at(B, p, c);   \
        sk_at(B, r, c) = unit ? s : s / sk_at(A, r, r);                        \
      }                                                                        \
    } else {                                                                   \
      for (sk_i64 r = m - 1; r >= 0; r--) {                                    \
        T s = alpha * sk_at(B, r, c);                                          \
        for (sk_i64 p = r + 1; p < m; p++) s -= sk_at(A, r, p) * sk_at(B, p, c); \
        sk_at(B, r, c) = unit ? s : s / sk_at(A, r, r);                        \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  /* column c of B: b = alpha A b in place */                                  \
  SK__LA void sk__trmv_col_##S(int lower, int unit, T alpha, M A, M B, sk_i64 c) { \
    sk_i64 m = B.m;                                                            \
    if (lower) {                                                               \
      for (sk_i64 r = m - 1; r >= 0; r--) {                                    \
        T s = unit ? sk_at(B, r, c) : sk_at(A, r, r) * sk_at(B, r, c);         \
        for (sk_i64 p = 0; p < r; p++) s += sk_at(A, r, p) * sk_at(B, p, c);   \
        sk_at(B, r, c) = alpha * s;                                            \
      }                                                                        \
    } else {                                                                   \
      for (sk_i64 r = 0; r < m; r++) {                                         \
        T s = unit ? sk_at(B, r, c) : sk_at(A, r, r) * sk_at(B, r, c);         \
        for (sk_i64 p = r + 1; p < m; p++) s += sk_at(A, r, p) * sk_at(B, p, c); \
        sk_at(B, r, c) = alpha * s;                                            \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  SK__LA void sk__zero_cols_##S(M B, sk_i64 c0, sk_i64 c1) {                   \
    for (sk_i64 c = c0; c < c1; c++)                                           \
      for (sk_i64 r = 0; r < B.m; r++) sk_at(B, r, c) = 0;                     \
  }                                                                            \
  SK__LA void serial_trsm_##S(int side, int uplo, int trans, int diag, T alpha, \
                              M A, M B) {                                      \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    if (alpha == 0) { sk__zero_cols_##S(B, 0, B.n); return; }                  \
    for (sk_i64 c = 0; c < B.n; c++) sk__trsv_col_##S(lower, unit, alpha, A, B, c); \
  }                                                                            \
  SK__LA void serial_trmm_##S(int side, int uplo, int trans, int diag, T alpha, \
                              M A, M B) {                                      \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    if (alpha == 0) { sk__zero_cols_##S(B, 0, B.n); return; }                  \
    for (sk_i64 c = 0; c < B.n; c++) sk__trmv_col_##S(lower, unit, alpha, A, B, c); \
  }                                                                            \
  /* the first zero diagonal entry + 1, or 0 */                                \
  SK__LA sk_i64 sk__zero_diag_##S(M A) {                                       \
    sk_i64 n = A.m < A.n ? A.m : A.n;                                          \
    for (sk_i64 r = 0; r < n; r++)                                             \
      if (sk_at(A, r, r) == 0) return r + 1;                                   \
    return 0;                                                                  \
  }                                                                            \
  /* LAPACK's trti2 on the upper triangle (lower: the transpose) */            \
  SK__LA sk_i64 serial_trtri_##S(int uplo, int diag, M A) {                    \
    int unit = diag == 'U' || diag == 'u';                                     \
    if (!unit) { sk_i64 z = sk__zero_diag_##S(A); if (z) return z; }           \
    if (uplo == 'L' || uplo == 'l') A = sk_mat_t_##S(A);                       \
    for (sk_i64 c = 0; c < A.n; c++) {                                         \
      T ajj = -1;                                                              \
      if (!unit) { sk_at(A, c, c) = 1 / sk_at(A, c, c); ajj = -sk_at(A, c, c); } \
      for (sk_i64 r = 0; r < c; r++) {                                         \
        T s = unit ? sk_at(A, r, c) : sk_at(A, r, r) * sk_at(A, r, c);         \
        for (sk_i64 p = r + 1; p < c; p++) s += sk_at(A, r, p) * sk_at(A, p, c); \
        sk_at(A, r, c) = s;                                                    \
      }                                                                        \
      for (sk_i64 r = 0; r < c; r++) sk_at(A, r, c) *= ajj;                    \
    }                                                                          \
    return 0;                                                                  \
  }                                                                            \
  /* one step of LU at pivot k (rows below k, columns right of k) */           \
  SK__LA void sk__lu_row_##S(M A, sk_i64 k, sk_i64 r) {                        \
    T l = sk_at(A, r, k) / sk_at(A, k, k);                                     \
    sk_at(A, r, k) = l;                                                        \
    for (sk_i64 c = k + 1; c < A.n; c++) sk_at(A, r, c) -= l * sk_at(A, k, c); \
  }                                                                            \
  SK__LA sk_i64 serial_lu_##S(M A) { /* no pivoting */                         \
    sk_i64 kn = A.m < A.n ? A.m : A.n;                                         \
    for (sk_i64 k = 0; k < kn; k++) {                                          \
      if (sk_at(A, k, k) == 0) return k + 1;                                   \
      for (sk_i64 r = k + 1; r < A.m; r++) sk__lu_row_##S(A, k, r);            \
    }                                                                          \
    return 0;                                                                  \
  }                                                                            \
  /* the row of the largest |A(r, k)|, r >= k (the first of equals) */         \
  SK__LA sk_i64 sk__pivot_##S(M A, sk_i64 k) {                                 \
    sk_i64 p = k;                                                              \
    T best = sk_at(A, k, k) < 0 ? -sk_at(A, k, k) : sk_at(A, k, k);            \
    for (sk_i64 r = k + 1; r < A.m; r++) {                                     \
      T v = sk_at(A, r, k) < 0 ? -sk_at(A, r, k) : sk_at(A, r, k);             \
      if (v > best) { best = v; p = r; }                                       \
    }                                                                          \
    return p;                                                                  \
  }                                                                            \
  SK__LA void sk__swap_rows_##S(M A, sk_i64 r1, sk_i64 r2) {                   \
    if (r1 == r2) return;                                                      \
    for (sk_i64 c = 0; c < A.n; c++) {                                         \
      T t = sk_at(A, r1, c); sk_at(A, r1, c) = sk_at(A, r2, c); sk_at(A, r2, c) = t; \
    }                                                                          \
  }                                                                            \
  /* partial pivoting: row k was swapped with row piv[k * ps] (0-based) */     \
  SK__LA sk_i64 serial_getrf_##S(M A, sk_i64 *piv, sk_i64 ps) {                \
    sk_i64 kn = A.m < A.n ? A.m : A.n, info = 0;                               \
    for (sk_i64 k = 0; k < kn; k++) {                                          \
      sk_i64 p = sk__pivot_##S(A, k);                                          \
      piv[k * ps] = p;                                                         \
      if (sk_at(A, p, k) == 0) { if (!info) info = k + 1; continue; }          \
      sk__swap_rows_##S(A, k, p);                                              \
      for (sk_i64 r = k + 1; r < A.m; r++) sk__lu_row_##S(A, k, r);            \
    }                                                                          \
    return info;                                                               \
  }                                                                            \
  /* solve with getrf's factors: B = A^-1 B */                                 \
  SK__LA void serial_getrs_##S(M A, const sk_i64 *piv, sk_i64 ps, M B) {       \
    for (sk_i64 k = 0; k < A.m; k++) sk__swap_rows_##S(B, k, piv[k * ps]);     \
    serial_trsm_##S('L', 'L', 'N', 'U', 1, A, B);                              \
    serial_trsm_##S('L', 'U', 'N', 'N', 1, A, B);                              \
  }                                                                            \
  SK__LA sk_i64 serial_gesv_##S(M A, sk_i64 *piv, sk_i64 ps, M B) {            \
    sk_i64 info = serial_getrf_##S(A, piv, ps);                                \
    if (!info) serial_getrs_##S(A, piv, ps, B);                                \
    return info;                                                               \
  }                                                                            \
  /* Cholesky, lower (A = L L^T) or upper (A = U^T U) */                       \
  SK__LA sk_i64 serial_potrf_##S(int uplo, M A) {                              \
    if (uplo == 'U' || uplo == 'u') A = sk_mat_t_##S(A);                       \
    for (sk_i64 c = 0; c < A.n; c++) {                                         \
      T d = sk_at(A, c, c);                                                    \
      for (sk_i64 p = 0; p < c; p++) d -= sk_at(A, c, p) * sk_at(A, c, p);     \
      if (!(d > 0) || d - d != 0) { sk_at(A, c, c) = d; return c + 1; }        \
      d = (T)sqrt(d);                                                          \
      sk_at(A, c, c) = d;                                                      \
      for (sk_i64 r = c + 1; r < A.m; r++) {                                   \
        T s = sk_at(A, r, c);                                                  \
        for (sk_i64 p = 0; p < c; p++) s -= sk_at(A, r, p) * sk_at(A, c, p);   \
        sk_at(A, r, c) = s / d;                                                \
      }                                                                        \
    }                                                                          \
    return 0;                                                                  \
  }                                                                            \
  /* -- team level: rows (gemm, lu) or independent columns (trsm, trmm) of  \
   * the work go to the members; on a GPU the vector lanes of a member other \
   * than lane 0 wait (team_) or take their share (teamvector_) */           \
  SK__LA void team_gemm_##S(SK__LA_TEAM, int ta, int tb, T alpha, M A, M B,    \
                            T beta, M C) {                                     \
    A = sk_mat_op_##S(ta, A); B = sk_mat_op_##S(tb, B);                        \
    TEAM_FOR(r, 0, C.m) if (SK__LANE0) sk__gemm_blk_##S(alpha, A, B, beta, C, r, r + 1, 0, C.n); \
    team_barrier(team);                                                        \
  }                                                                            \
  SK__LA void teamvector_gemm_##S(SK__LA_TEAM, int ta, int tb, T alpha, M A,   \
                                  M B, T beta, M C) {                          \
    A = sk_mat_op_##S(ta, A); B = sk_mat_op_##S(tb, B);                        \
    TEAM_FOR(r, 0, C.m) VECTOR_FOR(c, 0, C.n)                                  \
      sk__gemm_blk_##S(alpha, A, B, beta, C, r, r + 1, c, c + 1);              \
    team_barrier(team);                                                        \
  }                                                                            \
  SK__LA void team_trsm_##S(SK__LA_TEAM, int side, int uplo, int trans, int diag, \
                            T alpha, M A, M B) {                               \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    TEAM_FOR(c, 0, B.n) if (SK__LANE0) {                                       \
      if (alpha == 0) sk__zero_cols_##S(B, c, c + 1);                          \
      else sk__trsv_col_##S(lower, unit, alpha, A, B, c);                      \
    }                                                                          \
    team_barrier(team);                                                        \
  }                                                                            \
  SK__LA void teamvector_trsm_##S(SK__LA_TEAM, int side, int uplo, int trans,  \
                                  int diag, T alpha, M A, M B) {               \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    TEAM_VECTOR_FOR(c, 0, B.n) {                                               \
      if (alpha == 0) sk__zero_cols_##S(B, c, c + 1);                          \
      else sk__trsv_col_##S(lower, unit, alpha, A, B, c);                      \
    }                                                                          \
    team_barrier(team);                                                        \
  }                                                                            \
  SK__LA void team_trmm_##S(SK__LA_TEAM, int side, int uplo, int trans, int diag, \
                            T alpha, M A, M B) {                               \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    TEAM_FOR(c, 0, B.n) if (SK__LANE0) {                                       \
      if (alpha == 0) sk__zero_cols_##S(B, c, c + 1);                          \
      else sk__trmv_col_##S(lower, unit, alpha, A, B, c);                      \
    }                                                                          \
    team_barrier(team);                                                        \
  }                                                                            \
  SK__LA void teamvector_trmm_##S(SK__LA_TEAM, int side, int uplo, int trans,  \
                                  int diag, T alpha, M A, M B) {               \
    int lower = sk__tri_norm_##S(side, uplo, trans, &A, &B);                   \
    int unit = diag == 'U' || diag == 'u';                                     \
    TEAM_VECTOR_FOR(c, 0, B.n) {                                               \
      if (alpha == 0) sk__zero_cols_##S(B, c, c + 1);                          \
      else sk__trmv_col_##S(lower, unit, alpha, A, B, c);                      \
    }                                                                          \
    team_barrier(team);                                                        \
  }                                                                            \
  /* trtri's columns depend on each other in place: one thread inverts */     \
  SK__LA sk_i64 team_trtri_##S(SK__LA_TEAM, int uplo, int diag, M A) {         \
    team_barrier(team);                                                        \
    sk_i64 info = diag == 'U' || diag == 'u' ? 0 : sk__zero_diag_##S(A);       \
    team_barrier(team);                                                        \
    if (!info && team.team_rank == 0 && SK__LANE0) serial_trtri_##S(uplo, diag, A); \
    team_barrier(team);                                                        \
    return info;                                                               \
  }                                                                            \
  SK__LA sk_i64 teamvector_trtri_##S(SK__LA_TEAM, int uplo, int diag, M A) {   \
    return team_trtri_##S(team, uplo, diag, A);                                \
  }                                                                            \
  /* LU by rows: at each pivot the rows below it are updated in parallel; */  \
  /* with 'piv' (partial pivoting) one thread picks and swaps first */         \
  SK__LA sk_i64 sk__team_lu_##S(SK__LA_TEAM, M A, sk_i64 *piv, sk_i64 ps, int vec) { \
    sk_i64 kn = A.m < A.n ? A.m : A.n, info = 0;                               \
    team_barrier(team);                                                        \
    for (sk_i64 k = 0; k < kn; k++) {                                          \
      if (piv) {                                                               \
        if (team.team_rank == 0 && SK__LANE0) {                                \
          sk_i64 p = sk__pivot_##S(A, k);                                      \
          piv[k * ps] = p;                                                     \
          if (sk_at(A, p, k) != 0) sk__swap_rows_##S(A, k, p);                 \
        }                                                                      \
        team_barrier(team);                                                    \
      }                                                                        \
      if (sk_at(A, k, k) == 0) {                                               \
        if (!info) info = k + 1;                                               \
        if (!piv) break;                                                       \
        continue;                                                              \
      }                                                                        \
      if (vec) {                                                               \
        TEAM_FOR(r, k + 1, A.m) VECTOR_FOR(c, k + 1, A.n)                      \
          sk_at(A, r, c) -= sk_at(A, r, k) / sk_at(A, k, k) * sk_at(A, k, c);  \
        team_barrier(team);                                                    \
        TEAM_VECTOR_FOR(r, k + 1, A.m) sk_at(A, r, k) /= sk_at(A, k, k);       \
      } else {                                                                 \
        TEAM_FOR(r, k + 1, A.m) if (SK__LANE0) sk__lu_row_##S(A, k, r);        \
      }                                                                        \
      team_barrier(team);                                                      \
    }                                                                          \
    return info;                                                               \
  }                                                                            \
  SK__LA sk_i64 team_lu_##S(SK__LA_TEAM, M A) {                                \
    return sk__team_lu_##S(team, A, (sk_i64 *)0, 0, 0);                        \
  }                                                                            \
  SK__LA sk_i64 teamvector_lu_##S(SK__LA_TEAM, M A) {                          \
    return sk__team_lu_##S(team, A, (sk_i64 *)0, 0, 1);                        \
  }                                                                            \
  SK__LA sk_i64 team_getrf_##S(SK__LA_TEAM, M A, sk_i64 *piv, sk_i64 ps) {     \
    return sk__team_lu_##S(team, A, piv, ps, 0);                               \
  }                                                                            \
  SK__LA sk_i64 teamvector_getrf_##S(SK__LA_TEAM, M A, sk_i64 *piv, sk_i64 ps) { \
    return sk__team_lu_##S(team, A, piv, ps, 1);                               \
  }                                                                            \
  SK__LA void sk__team_getrs_##S(SK__LA_TEAM, M A, const sk_i64 *piv, sk_i64 ps, \
                                 M B, int vec) {                               \
    team_barrier(team);                                                        \
    if (team.team_rank == 0 && SK__LANE0)                                      \
      for (sk_i64 k = 0; k < A.m; k++) sk__swap_rows_##S(B, k, piv[k * ps]);   \
    team_barrier(team);                                                        \
    if (vec) {                                                                 \
      teamvector_trsm_##S(team, 'L', 'L', 'N', 'U', 1, A, B);                  \
      teamvector_trsm_##S(team, 'L', 'U', 'N', 'N', 1, A, B);                  \
    } else {                                                                   \
      team_trsm_##S(team, 'L', 'L', 'N', 'U', 1, A, B);                        \
      team_trsm_##S(team, 'L', 'U', 'N', 'N', 1, A, B);                        \
    }                                                                          \
  }                                                                            \
  SK__LA void team_getrs_##S(SK__LA_TEAM, M A, const sk_i64 *piv, sk_i64 ps, M B) { \
    sk__team_getrs_##S(team, A, piv, ps, B, 0);                                \
  }                                                                            \
  SK__LA void teamvector_getrs_##S(SK__LA_TEAM, M A, const sk_i64 *piv,        \
                                   sk_i64 ps, M B) {                           \
    sk__team_getrs_##S(team, A, piv, ps, B, 1);                                \
  }                                                                            \
  SK__LA sk_i64 team_gesv_##S(SK__LA_TEAM, M A, sk_i64 *piv, sk_i64 ps, M B) { \
    sk_i64 info = team_getrf_##S(team, A, piv, ps);                            \
    if (!info) team_getrs_##S(team, A, piv, ps, B);                            \
    return info;                                                               \
  }                                                                            \
  SK__LA sk_i64 teamvector_gesv_##S(SK__LA_TEAM, M A, sk_i64 *piv, sk_i64 ps, M B) { \
    sk_i64 info = teamvector_getrf_##S(team, A, piv, ps);                      \
    if (!info) teamvector_getrs_##S(team, A, piv, ps, B);                      \
    return info;                                                               \
  }

SK__LA_OPS(double, sk_mat, d)
SK__LA_OPS(float, sk_matf, f)

/* -- batched.gemm's small square kernels (host) -----------------------------
 * SK__SGT(T, N, W, NC, RB, a, b, c, al, be): c = al a b, or al a b + be c
 * when be != 0, for one N x N matrix of T (double or float), a b c row major
 * and contiguous (T pointers), N a constant; SK__SG(N, ...): T double. Each
 * element is the fma chain over p from 0 then al * s (+ be * c), as
 * serial_gemm computes it, bit for bit. Rows of C are taken RB at a time
 * (the last block overlapping its predecessor), each row in NC chunks of W
 * columns (the last chunk overlapping too; NC = T1 or T1f: a chunk of W
 * and the last column alone), the block's RB x NC chunks in registers: a
 * vector of W lanes (AVX-512 builds with gcc) or an array (tcc, other
 * hosts; the launch path runs it on the host only, a GPU merely compiles
 * it). W names the lanes and the type: 8 4 2 1 doubles, f16 f8 f4 f1
 * floats. */
#define SK__SG_R1(X, W, NC) X(0, W, NC)
#define SK__SG_R2(X, W, NC) SK__SG_R1(X, W, NC) X(1, W, NC)
#define SK__SG_R3(X, W, NC) SK__SG_R2(X, W, NC) X(2, W, NC)
#define SK__SG_R4(X, W, NC) SK__SG_R3(X, W, NC) X(3, W, NC)
#define SK__SG_R5(X, W, NC) SK__SG_R4(X, W, NC) X(4, W, NC)
#define SK__SG_R6(X, W, NC) SK__SG_R5(X, W, NC) X(5, W, NC)
#define SK__SG_R7(X, W, NC) SK__SG_R6(X, W, NC) X(6, W, NC)
#define SK__SG_R8(X, W, NC) SK__SG_R7(X, W, NC) X(7, W, NC)
#define SK__SG_R9(X, W, NC) SK__SG_R8(X, W, NC) X(8, W, NC)
#define SK__SG_Q1(X, W, r) X(r, 0, W)
#define SK__SG_Q2(X, W, r) X(r, 0, W) X(r, 1, W)
#define SK__SG_Q3(X, W, r) X(r, 0, W) X(r, 1, W) X(r, 2, W)
/* NC = T1 (doubles), T1f (floats): a chunk of W columns and the last
 * column alone (a scalar: 9x9 as 8 + 1 instead of two overlapping chunks
 * of 8, half the work) */
#define SK__SG_QT1(X, W, r) X(r, 0, W) X(r, 1, t1)
#define SK__SG_QT1f(X, W, r) X(r, 0, W) X(r, 1, tf1)
/* chunks a row, by NC */
#define SK__SG_N1 1
#define SK__SG_N2 2
#define SK__SG_N3 3
#define SK__SG_NT1 2
#define SK__SG_NT1f 2
/* lanes and element type, by W (t1, tf1: the scalar tail of a T1 row) */
#define SK__SG_Lt1 1
#define SK__SG_Ltf1 1
#define SK__SG_Et1 double
#define SK__SG_Etf1 float
#define SK__SG_L8 8
#define SK__SG_L4 4
#define SK__SG_L2 2
#define SK__SG_L1 1
#define SK__SG_Lf16 16
#define SK__SG_Lf8 8
#define SK__SG_Lf4 4
#define SK__SG_Lf1 1
#define SK__SG_E8 double
#define SK__SG_E4 double
#define SK__SG_E2 double
#define SK__SG_E1 double
#define SK__SG_Ef16 float
#define SK__SG_Ef8 float
#define SK__SG_Ef4 float
#define SK__SG_Ef1 float
/* chunk q's first column */
#define SK__SG_OFF(q, W) ((q) < SK__NC - 1 ? (q) * (SK__SG_L##W) : SK__N - (SK__SG_L##W))
#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && defined(__AVX512F__)
typedef double sk__v8 __attribute__((vector_size(64)));
typedef double sk__v4 __attribute__((vector_size(32)));
typedef double sk__v2 __attribute__((vector_size(16)));
typedef double sk__v1;
typedef double sk__vt1;
typedef double sk__v8u __attribute__((vector_size(64), aligned(8), may_alias));
typedef double sk__v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef double sk__v2u __attribute__((vector_size(16), aligned(8), may_alias));
typedef double sk__v1u __attribute__((aligned(8), may_alias));
typedef double sk__vt1u __attribute__((aligned(8), may_alias));
typedef float sk__vf16 __attribute__((vector_size(64)));
typedef float sk__vf8 __attribute__((vector_size(32)));
typedef float sk__vf4 __attribute__((vector_size(16)));
typedef float sk__vf1;
typedef float sk__vtf1;
typedef float sk__vf16u __attribute__((vector_size(64), aligned(4), may_alias));
typedef float sk__vf8u __attribute__((vector_size(32), aligned(4), may_alias));
typedef float sk__vf4u __attribute__((vector_size(16), aligned(4), may_alias));
typedef float sk__vf1u __attribute__((aligned(4), may_alias));
typedef float sk__vtf1u __attribute__((aligned(4), may_alias));
#define SK__SG_BC8(s) ((sk__v8){s, s, s, s, s, s, s, s})
#define SK__SG_BC4(s) ((sk__v4){s, s, s, s})
#define SK__SG_BC2(s) ((sk__v2){s, s})
#define SK__SG_BC1(s) ((sk__v1)(s))
#define SK__SG_BCt1(s) ((sk__vt1)(s))
#define SK__SG_BCtf1(s) ((sk__vtf1)(s))
#define SK__SG_BCf16(s) ((sk__vf16){s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s})
#define SK__SG_BCf8(s) ((sk__vf8){s, s, s, s, s, s, s, s})
#define SK__SG_BCf4(s) ((sk__vf4){s, s, s, s})
#define SK__SG_BCf1(s) ((sk__vf1)(s))
#define SK__SG_FMA8(a, b, c) __builtin_ia32_vfmaddpd512_mask(a, b, c, (unsigned char)-1, 4)
#define SK__SG_FMA4(a, b, c) __builtin_ia32_vfmaddpd256(a, b, c)
#define SK__SG_FMA2(a, b, c) __builtin_ia32_vfmaddpd(a, b, c)
#define SK__SG_FMA1(a, b, c) __builtin_fma(a, b, c)
#define SK__SG_FMAt1(a, b, c) __builtin_fma(a, b, c)
#define SK__SG_FMAtf1(a, b, c) __builtin_fmaf(a, b, c)
#define SK__SG_FMAf16(a, b, c) __builtin_ia32_vfmaddps512_mask(a, b, c, (unsigned short)-1, 4)
#define SK__SG_FMAf8(a, b, c) __builtin_ia32_vfmaddps256(a, b, c)
#define SK__SG_FMAf4(a, b, c) __builtin_ia32_vfmaddps(a, b, c)
#define SK__SG_FMAf1(a, b, c) __builtin_fmaf(a, b, c)
/* a row's a[r][p] broadcast once into a register, the chunks take it
 * whole, a T1 row's tail its first lane; in T1 rows an empty asm keeps gcc
 * from folding a broadcast load into each fma (9x9 in cache 10-15 %
 * faster; no gain with two chunks of 8) */
#define SK__SG_KEEP1(x)
#define SK__SG_KEEP2(x)
#define SK__SG_KEEP3(x)
#define SK__SG_KEEPT1(x) __asm__("" : "+v"(x));
#define SK__SG_KEEPT1f(x) __asm__("" : "+v"(x));
#define SK__SG_BCR(W, NC, x, s) sk__v##W x = SK__SG_BC##W(s); SK__SG_KEEP##NC(x)
#define SK__SG_TKV8(x) (x)
#define SK__SG_TKV4(x) (x)
#define SK__SG_TKV2(x) (x)
#define SK__SG_TKV1(x) (x)
#define SK__SG_TKVf16(x) (x)
#define SK__SG_TKVf8(x) (x)
#define SK__SG_TKVf4(x) (x)
#define SK__SG_TKVf1(x) (x)
#define SK__SG_TKVt1(x) ((x)[0])
#define SK__SG_TKVtf1(x) ((x)[0])
#define SK__SG_ZERO(W, x) sk__v##W x = SK__SG_BC##W((SK__SG_E##W)0);
#define SK__SG_LD(W, x, p) const sk__v##W x = *(const sk__v##W##u *)(p);
#define SK__SG_FMAS(W, acc, s, x) acc = SK__SG_FMA##W(SK__SG_TKV##W(s), x, acc);
#define SK__SG_ST0(W, p, al, acc) *(sk__v##W##u *)(p) = SK__SG_BC##W(al) * (acc);
#define SK__SG_ST1(W, p, al, acc, be, t) \
  *(sk__v##W##u *)(p) = SK__SG_BC##W(al) * (acc) + SK__SG_BC##W(be) * (t);
/* SK__SG_Y3(W, T, a, b, c, al): one 3x3 product with beta 0, W = 4
 * (doubles, a ymm) or f4 (floats, an xmm): a row of C in the first 3 of
 * 4 lanes, B's rows read 4 wide into registers (row 2 reads the first
 * element of the next matrix: only where one follows), rows 0 and 1 of C
 * stored 4 wide (the extra lane overwritten by the next row's store), row
 * 2 masked. 9 fmas and 3 stores where the rows of two overlapping 2-lane
 * chunks take 18 and 6 (3x3 in a prototype beyond the caches 1.1-1.3x
 * faster, at the speed of a copy of the same bytes); each lane the same
 * fma chain. */
#define SK__SG_Y3OK 1
#define SK__SG_MST4(p, x) __builtin_ia32_storeupd256_mask((double *)(void *)(p), (x), 7)
#define SK__SG_MSTf4(p, x) __builtin_ia32_storeups128_mask((float *)(void *)(p), (x), 7)
#define SK__SG_Y3(W, T, a, b, c, al) do {                                      \
  const T *const sk__ya = (a), *const sk__yb = (b);                             \
  T *const sk__yc = (c);                                                        \
  sk__v##W sk__b0 = *(const sk__v##W##u *)(const void *)sk__yb;                 \
  sk__v##W sk__b1 = *(const sk__v##W##u *)(const void *)(sk__yb + 3);           \
  sk__v##W sk__b2 = *(const sk__v##W##u *)(const void *)(sk__yb + 6);           \
  __asm__("" : "+v"(sk__b0), "+v"(sk__b1), "+v"(sk__b2));                       \
  const sk__v##W sk__z = SK__SG_BC##W(0), sk__al = SK__SG_BC##W(al);            \
  sk__v##W sk__x0 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[0]), sk__b0, sk__z);      \
  sk__v##W sk__x1 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[3]), sk__b0, sk__z);      \
  sk__v##W sk__x2 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[6]), sk__b0, sk__z);      \
  sk__x0 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[1]), sk__b1, sk__x0);              \
  sk__x1 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[4]), sk__b1, sk__x1);              \
  sk__x2 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[7]), sk__b1, sk__x2);              \
  sk__x0 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[2]), sk__b2, sk__x0);              \
  sk__x1 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[5]), sk__b2, sk__x1);              \
  sk__x2 = SK__SG_FMA##W(SK__SG_BC##W(sk__ya[8]), sk__b2, sk__x2);              \
  *(sk__v##W##u *)(void *)sk__yc = sk__al * sk__x0;                             \
  *(sk__v##W##u *)(void *)(sk__yc + 3) = sk__al * sk__x1;                       \
  SK__SG_MST##W(sk__yc + 6, sk__al * sk__x2);                                   \
  } while (0)
#else
#define SK__SG_Y3OK 0
#define SK__SG_Y3(W, T, a, b, c, al) (void)0
#define SK__SG_BCR(W, NC, x, s) const sk__T x = (s);
#define SK__SG_ZERO(W, x) \
  SK__SG_E##W x[SK__SG_L##W]; for (int l_ = 0; l_ < SK__SG_L##W; l_++) x[l_] = 0;
#define SK__SG_LD(W, x, p) \
  SK__SG_E##W x[SK__SG_L##W]; for (int l_ = 0; l_ < SK__SG_L##W; l_++) x[l_] = (p)[l_];
#define SK__SG_FMAS(W, acc, s, x) \
  for (int l_ = 0; l_ < SK__SG_L##W; l_++) acc[l_] = sk_fma(s, x[l_], acc[l_]);
#define SK__SG_ST0(W, p, al, acc) \
  for (int l_ = 0; l_ < SK__SG_L##W; l_++) (p)[l_] = (al) * acc[l_];
#define SK__SG_ST1(W, p, al, acc, be, t) \
  for (int l_ = 0; l_ < SK__SG_L##W; l_++) (p)[l_] = (al) * acc[l_] + (be) * t[l_];
#endif
/* SK__SG_NT(dst, src, from, to): bytes [from, to) of src to dst (64-byte
 * lines: from, to multiples of 64, dst and src 64-aligned), with
 * non-temporal stores where the build has them (gcc, AVX-512), then
 * SK__SG_FENCE() orders them before the work item ends; a plain copy
 * elsewhere. The fast path writes C this way with stream = true (no read
 * for ownership of C: a quarter less memory traffic). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__TINYC__) && \
    defined(__AVX512F__) && !defined(SK__LA_DEV)
typedef long long sk__nt8 __attribute__((vector_size(64)));
#define SK__SG_NT(dst, src, from, to)                                          \
  for (sk_i64 sk__o = (from); sk__o < (to); sk__o += 64)                        \
    __builtin_ia32_movntdq512((sk__nt8 *)((char *)(dst) + sk__o),               \
                              *(const sk__nt8 *)((const char *)(src) + sk__o));
#define SK__SG_FENCE() __builtin_ia32_sfence();
#else
#define SK__SG_NT(dst, src, from, to)                                          \
  for (sk_i64 sk__o = (from); sk__o < (to); sk__o++)                            \
    ((char *)(dst))[sk__o] = ((const char *)(src))[sk__o];
#define SK__SG_FENCE()
#endif
#define SK__SG_DECL(r, q, W) SK__SG_ZERO(W, sk__acc##r##_##q)
#define SK__SG_DECLR(r, W, NC) SK__SG_Q##NC(SK__SG_DECL, W, r)
#define SK__SG_LDB(r, q, W) SK__SG_LD(W, sk__b##q, sk__bp + SK__SG_OFF(q, W))
#define SK__SG_FMQ(r, q, W) SK__SG_FMAS(W, sk__acc##r##_##q, sk__ap, sk__b##q)
#define SK__SG_ROW(r, W, NC) \
  { SK__SG_BCR(W, NC, sk__ap, sk__a[(sk__r0 + r) * SK__N + sk__p]) SK__SG_Q##NC(SK__SG_FMQ, W, r) }
#define SK__SG_S0(r, q, W) SK__SG_ST0(W, sk__cr + SK__SG_OFF(q, W), sk__al, sk__acc##r##_##q)
#define SK__SG_LC(r, q, W) SK__SG_LD(W, sk__t##q, sk__cr + SK__SG_OFF(q, W))
#define SK__SG_S1(r, q, W) \
  SK__SG_ST1(W, sk__cr + SK__SG_OFF(q, W), sk__al, sk__acc##r##_##q, sk__be, sk__t##q)
/* row r of the block: stored unless an earlier block stored it (beta != 0
 * reads C, so an overlapping row must not be written twice) */
#define SK__SG_STR(r, W, NC) \
  if (sk__r0 + r >= sk__rb * sk__RB) {                                          \
    sk__T *sk__cr = sk__c + (sk__r0 + r) * SK__N;                               \
    if (sk__be == 0) { SK__SG_Q##NC(SK__SG_S0, W, r) }                          \
    else { SK__SG_Q##NC(SK__SG_LC, W, r) SK__SG_Q##NC(SK__SG_S1, W, r) }        \
  }
#define SK__SGT(T, N, W, NC, RB, a, b, c, al, be) do {                         \
  typedef T sk__T;                                                              \
  enum { SK__N = N, SK__NC = SK__SG_N##NC, sk__RB = RB };                       \
  const sk__T *const sk__a = (a), *const sk__b = (b);                           \
  sk__T *const sk__c = (c);                                                     \
  const sk__T sk__al = (al), sk__be = (be);                                     \
  for (int sk__rb = 0; sk__rb < (N + RB - 1) / RB; sk__rb++) {                  \
    const int sk__r0 = sk__rb < (N + RB - 1) / RB - 1 ? sk__rb * RB : N - RB;   \
    SK__SG_R##RB(SK__SG_DECLR, W, NC)                                           \
    for (int sk__p = 0; sk__p < N; sk__p++) {                                   \
      const sk__T *const sk__bp = sk__b + sk__p * N;                            \
      SK__SG_Q##NC(SK__SG_LDB, W, 0)                                            \
      SK__SG_R##RB(SK__SG_ROW, W, NC)                                           \
    }                                                                           \
    SK__SG_R##RB(SK__SG_STR, W, NC)                                             \
  } } while (0)
#define SK__SG(N, W, NC, RB, a, b, c, al, be) SK__SGT(double, N, W, NC, RB, a, b, c, al, be)

/* SK__SGB(T, S, N, W, NC, RB): defines sk__sgb_<S><N>(a, sa, b, sb, c, sc,
 * m0, m1, nb, al, be), SK__SGT over the matrices m0 .. m1 - 1 of a batch
 * of nb (matrix m at a + m * sa, b + m * sb, c + m * sc, each row major
 * and contiguous); beta 0, and then alpha 1, in loops of their own (no
 * read of C, no multiply: al * s is s when al is 1). A function of its own
 * (gcc: not inlined), so that the loop keeps its pointers and counter in
 * registers: inlined into batched.gemm_small's switch of every size, gcc
 * kept them on the stack (3x3 in cache 20 % slower). No software
 * prefetch: the operands 4 matrices ahead, a prefetcht0 a line, made 15x15
 * beyond the caches 1.7x slower on an AMD EPYC (Zen 4: 44 against 75
 * GFLOP/s, 2 threads) and 9x9 8 % slower; the hardware's stream
 * prefetchers follow the batch (docs/bench-library.md, "dense"). */
#if defined(__GNUC__) && !defined(__TINYC__) && !defined(SK__LA_DEV)
#define SK__SG_FN static __attribute__((noinline, unused))
#else
#define SK__SG_FN SK__LA
#endif
#define SK__SGB_L(T, N, W, NC, RB, al, be)                                     \
  for (sk_i64 m_ = m0; m_ < m1; m_++) {                                         \
    SK__SGT(T, N, W, NC, RB, a + m_ * sa, b + m_ * sb, c + m_ * sc, al, be);    \
  }
/* sk__sgbn_<S><N>: the same with beta 0 and C streamed (stream = true):
 * C contiguous from c, matrix m0's first byte 64-aligned; each product
 * goes to a one-matrix buffer whose whole 64-byte lines are stored
 * non-temporally (SK__SG_NT), the rest carried to the next matrix's; the
 * last bytes stored plainly, then one fence */
#define SK__SGBN_L(T, N, W, NC, RB, al)                                        \
  for (sk_i64 m_ = m0; m_ < m1; m_++) {                                         \
    SK__SGT(T, N, W, NC, RB, a + m_ * sa, b + m_ * sb, (T *)(lb_ + carry_), al, (T)0); \
    const sk_i64 tot_ = carry_ + N * N * (sk_i64)sizeof(T), full_ = tot_ / 64 * 64; \
    SK__SG_NT(cw_, ln_, 0, full_)                                               \
    cw_ += full_;                                                               \
    for (sk_i64 o_ = full_; o_ < tot_; o_++) lb_[o_ - full_] = lb_[o_];         \
    carry_ = tot_ - full_;                                                      \
  }
/* beta 0: 3x3 by SK__SG_Y3 (but the batch's last matrix), the rest by
 * SK__SGB_L */
#define SK__SGB_L0(T, N, W, NC, RB, al)                                        \
  {                                                                             \
    sk_i64 m0_ = m0;                                                            \
    const sk_i64 e_ = m1 < nb - 1 ? m1 : nb - 1;                                \
    if (SK__SG_Y3OK && N == 3 && sizeof(T) == 8)                                \
      for (; m0_ < e_; m0_++)                                                   \
        SK__SG_Y3(4, T, a + m0_ * sa, b + m0_ * sb, c + m0_ * sc, al);          \
    else if (SK__SG_Y3OK && N == 3 && sizeof(T) == 4)                           \
      for (; m0_ < e_; m0_++)                                                   \
        SK__SG_Y3(f4, T, a + m0_ * sa, b + m0_ * sb, c + m0_ * sc, al);         \
    for (sk_i64 m_ = m0_; m_ < m1; m_++)                                        \
      SK__SGT(T, N, W, NC, RB, a + m_ * sa, b + m_ * sb, c + m_ * sc, al, (T)0); \
  }
#if defined(SK__LA_DEV)
/* A GPU compiles batched.gemm_small but never runs it (the host's fast
 * path): serial_gemm per matrix, the size read back from a volatile so
 * that nothing is unrolled (its compiler took 170 s for the unrolled loops of
 * every size, 60-90 s with serial_gemm at constant sizes) */
#define SK__SGB(T, S, N, W, NC, RB)                                            \
  SK__SG_FN void sk__sgb_##S##N(const T *a, sk_i64 sa, const T *b, sk_i64 sb,  \
                                T *c, sk_i64 sc, sk_i64 m0, sk_i64 m1,          \
                                sk_i64 nb, T al, T be) {                        \
    volatile sk_i64 n_ = N;                                                     \
    const sk_i64 n = n_;                                                        \
    (void)nb;                                                                   \
    for (sk_i64 m_ = m0; m_ < m1; m_++)                                         \
      serial_gemm_##S('N', 'N', al, sk__mat_of((T *)(a + m_ * sa), n, n, n, 1), \
                      sk__mat_of((T *)(b + m_ * sb), n, n, n, 1), be,           \
                      sk__mat_of(c + m_ * sc, n, n, n, 1));                     \
  }                                                                             \
  SK__SG_FN void sk__sgbn_##S##N(const T *a, sk_i64 sa, const T *b, sk_i64 sb, \
                                 T *c, sk_i64 m0, sk_i64 m1, T al) {            \
    sk__sgb_##S##N(a, sa, b, sb, c, N * N, m0, m1, m1, al, (T)0);               \
  }
#else
#define SK__SGB(T, S, N, W, NC, RB)                                            \
  SK__SG_FN void sk__sgb_##S##N(const T *a, sk_i64 sa, const T *b, sk_i64 sb,  \
                                T *c, sk_i64 sc, sk_i64 m0, sk_i64 m1,          \
                                sk_i64 nb, T al, T be) {                        \
    if (be != 0) SK__SGB_L(T, N, W, NC, RB, al, be)                             \
    else if (N == 3 && al == 1) SK__SGB_L0(T, N, W, NC, RB, (T)1)              \
    else if (N == 3) SK__SGB_L0(T, N, W, NC, RB, al)                           \
    else if (al == 1) SK__SGB_L(T, N, W, NC, RB, (T)1, (T)0)                   \
    else SK__SGB_L(T, N, W, NC, RB, al, (T)0)                                   \
  }                                                                             \
  SK__SG_FN void sk__sgbn_##S##N(const T *a, sk_i64 sa, const T *b, sk_i64 sb, \
                                 T *c, sk_i64 m0, sk_i64 m1, T al) {            \
    T ln_[N * N + 64 / sizeof(T)] __attribute__((aligned(64)));                 \
    char *const lb_ = (char *)ln_, *cw_ = (char *)(c + m0 * N * N);             \
    sk_i64 carry_ = 0;                                                          \
    if (al == 1) SK__SGBN_L(T, N, W, NC, RB, (T)1)                              \
    else SK__SGBN_L(T, N, W, NC, RB, al)                                        \
    for (sk_i64 o_ = 0; o_ < carry_; o_++) cw_[o_] = lb_[o_];                   \
    SK__SG_FENCE()                                                              \
  }
#endif

/* The offset of batch entry b: rank 3, b * stride[0]; a SIMD-packed rank-4
 * view (batched.pack: (groups, rows, cols, width), entry b in lane b %
 * width of group b / width), the group's and the lane's offsets. */
SK__LA sk_i64 sk__batch_off(sk_i64 rank, sk_i64 b, sk_i64 w, sk_i64 s0, sk_i64 s3) {
  return rank == 4 ? (b / w) * s0 + (b % w) * s3 : b * s0;
}

/* -- the type-generic names ------------------------------------------------
 * matrix(A, b) / matrix(A): a view capture's matrix (its 'data' pointer
 * picks the type); the operations dispatch on their last matrix. */
#define SK__MAT3(A, b)                                                         \
  sk__mat_of((A).data + sk__batch_off((A).rank, (sk_i64)(b), (A).extent[3],     \
                                      (A).stride[0], (A).stride[3]),           \
             (A).extent[1], (A).extent[2], (A).stride[1], (A).stride[2])
#define SK__MAT2(A) sk__mat_of((A).data, (A).extent[0], (A).extent[1],         \
                               (A).stride[0], (A).stride[1])
#define SK__MATSEL(_1, _2, NAME, ...) NAME
#define matrix(...) SK__MATSEL(__VA_ARGS__, SK__MAT3, SK__MAT2, 0)(__VA_ARGS__)
/* a rows x cols float64 matrix (row major) in team scratch */
#define matrix_scratch(tm, level, rows, cols)                                  \
  sk_mat_make_d((double *)team_scratch(tm, level, (sk_i64)(rows) * (sk_i64)(cols) * 8), \
                (rows), (cols), (cols), 1)
#define matrixf_scratch(tm, level, rows, cols)                                 \
  sk_mat_make_f((float *)team_scratch(tm, level, (sk_i64)(rows) * (sk_i64)(cols) * 4), \
                (rows), (cols), (cols), 1)

#ifdef SK__LA_DEV
SK__LA sk_mat sk__mat_of(double *p, sk_i64 m, sk_i64 n, sk_i64 rs, sk_i64 cs) {
  return sk_mat_make_d(p, m, n, rs, cs);
}
SK__LA sk_matf sk__mat_of(float *p, sk_i64 m, sk_i64 n, sk_i64 rs, sk_i64 cs) {
  return sk_mat_make_f(p, m, n, rs, cs);
}
#define SK__LA_OVL(T, M, S)                                                    \
  SK__LA M sk_mat_t(M a) { return sk_mat_t_##S(a); }                           \
  SK__LA M sk_mat_sub(M a, sk_i64 i, sk_i64 j, sk_i64 m, sk_i64 n) {           \
    return sk_mat_sub_##S(a, i, j, m, n);                                      \
  }                                                                            \
  SK__LA void serial_gemm(int ta, int tb, T al, M A, M B, T be, M C) {         \
    serial_gemm_##S(ta, tb, al, A, B, be, C);                                  \
  }                                                                            \
  SK__LA void serial_trsm(int s, int u, int t, int d, T al, M A, M B) {        \
    serial_trsm_##S(s, u, t, d, al, A, B);                                     \
  }                                                                            \
  SK__LA void serial_trmm(int s, int u, int t, int d, T al, M A, M B) {        \
    serial_trmm_##S(s, u, t, d, al, A, B);                                     \
  }                                                                            \
  SK__LA sk_i64 serial_trtri(int u, int d, M A) { return serial_trtri_##S(u, d, A); } \
  SK__LA sk_i64 serial_lu(M A) { return serial_lu_##S(A); }                    \
  SK__LA sk_i64 serial_getrf(M A, sk_i64 *p, sk_i64 ps) { return serial_getrf_##S(A, p, ps); } \
  SK__LA void serial_getrs(M A, const sk_i64 *p, sk_i64 ps, M B) { serial_getrs_##S(A, p, ps, B); } \
  SK__LA sk_i64 serial_gesv(M A, sk_i64 *p, sk_i64 ps, M B) { return serial_gesv_##S(A, p, ps, B); } \
  SK__LA sk_i64 serial_potrf(int u, M A) { return serial_potrf_##S(u, A); }    \
  SK__LA void team_gemm(SK__LA_TEAM, int ta, int tb, T al, M A, M B, T be, M C) { \
    team_gemm_##S(team, ta, tb, al, A, B, be, C);                              \
  }                                                                            \
  SK__LA void teamvector_gemm(SK__LA_TEAM, int ta, int tb, T al, M A, M B, T be, M C) { \
    teamvector_gemm_##S(team, ta, tb, al, A, B, be, C);                        \
  }                                                                            \
  SK__LA void team_trsm(SK__LA_TEAM, int s, int u, int t, int d, T al, M A, M B) { \
    team_trsm_##S(team, s, u, t, d, al, A, B);                                 \
  }                                                                            \
  SK__LA void teamvector_trsm(SK__LA_TEAM, int s, int u, int t, int d, T al, M A, M B) { \
    teamvector_trsm_##S(team, s, u, t, d, al, A, B);                           \
  }                                                                            \
  SK__LA void team_trmm(SK__LA_TEAM, int s, int u, int t, int d, T al, M A, M B) { \
    team_trmm_##S(team, s, u, t, d, al, A, B);                                 \
  }                                                                            \
  SK__LA void teamvector_trmm(SK__LA_TEAM, int s, int u, int t, int d, T al, M A, M B) { \
    teamvector_trmm_##S(team, s, u, t, d, al, A, B);                           \
  }                                                                            \
  SK__LA sk_i64 team_trtri(SK__LA_TEAM, int u, int d, M A) { return team_trtri_##S(team, u, d, A); } \
  SK__LA sk_i64 teamvector_trtri(SK__LA_TEAM, int u, int d, M A) {             \
    return teamvector_trtri_##S(team, u, d, A);                                \
  }                                                                            \
  SK__LA sk_i64 team_lu(SK__LA_TEAM, M A) { return team_lu_##S(team, A); }     \
  SK__LA sk_i64 teamvector_lu(SK__LA_TEAM, M A) { return teamvector_lu_##S(team, A); } \
  SK__LA sk_i64 team_getrf(SK__LA_TEAM, M A, sk_i64 *p, sk_i64 ps) {           \
    return team_getrf_##S(team, A, p, ps);                                     \
  }                                                                            \
  SK__LA sk_i64 teamvector_getrf(SK__LA_TEAM, M A, sk_i64 *p, sk_i64 ps) {     \
    return teamvector_getrf_##S(team, A, p, ps);                               \
  }                                                                            \
  SK__LA void team_getrs(SK__LA_TEAM, M A, const sk_i64 *p, sk_i64 ps, M B) {  \
    team_getrs_##S(team, A, p, ps, B);                                         \
  }                                                                            \
  SK__LA void teamvector_getrs(SK__LA_TEAM, M A, const sk_i64 *p, sk_i64 ps, M B) { \
    teamvector_getrs_##S(team, A, p, ps, B);                                   \
  }                                                                            \
  SK__LA sk_i64 team_gesv(SK__LA_TEAM, M A, sk_i64 *p, sk_i64 ps, M B) {       \
    return team_gesv_##S(team, A, p, ps, B);                                   \
  }                                                                            \
  SK__LA sk_i64 teamvector_gesv(SK__LA_TEAM, M A, sk_i64 *p, sk_i64 ps, M B) { \
    return teamvector_gesv_##S(team, A, p, ps, B);                             \
  }
SK__LA_OVL(double, sk_mat, d)
SK__LA_OVL(float, sk_matf, f)
#else
#define sk__mat_of(p, m, n, rs, cs)                                            \
  _Generic((p), double *: sk_mat_make_d, float *: sk_mat_make_f)(              \
    (p), (m), (n), (rs), (cs))
#define SK__LA_G(name, M) _Generic((M), sk_mat: name##_d, sk_matf: name##_f)
#define sk_mat_t(a) SK__LA_G(sk_mat_t, a)(a)
#define sk_mat_sub(a, i, j, m, n) SK__LA_G(sk_mat_sub, a)(a, i, j, m, n)
#define serial_gemm(ta, tb, al, A, B, be, C) SK__LA_G(serial_gemm, C)(ta, tb, al, A, B, be, C)
#define serial_trsm(s, u, t, d, al, A, B) SK__LA_G(serial_trsm, B)(s, u, t, d, al, A, B)
#define serial_trmm(s, u, t, d, al, A, B) SK__LA_G(serial_trmm, B)(s, u, t, d, al, A, B)
#define serial_trtri(u, d, A) SK__LA_G(serial_trtri, A)(u, d, A)
#define serial_lu(A) SK__LA_G(serial_lu, A)(A)
#define serial_getrf(A, p, ps) SK__LA_G(serial_getrf, A)(A, p, ps)
#define serial_getrs(A, p, ps, B) SK__LA_G(serial_getrs, B)(A, p, ps, B)
#define serial_gesv(A, p, ps, B) SK__LA_G(serial_gesv, B)(A, p, ps, B)
#define serial_potrf(u, A) SK__LA_G(serial_potrf, A)(u, A)
#define team_gemm(tm, ta, tb, al, A, B, be, C) SK__LA_G(team_gemm, C)(tm, ta, tb, al, A, B, be, C)
#define teamvector_gemm(tm, ta, tb, al, A, B, be, C)                           \
  SK__LA_G(teamvector_gemm, C)(tm, ta, tb, al, A, B, be, C)
#define team_trsm(tm, s, u, t, d, al, A, B) SK__LA_G(team_trsm, B)(tm, s, u, t, d, al, A, B)
#define teamvector_trsm(tm, s, u, t, d, al, A, B)                              \
  SK__LA_G(teamvector_trsm, B)(tm, s, u, t, d, al, A, B)
#define team_trmm(tm, s, u, t, d, al, A, B) SK__LA_G(team_trmm, B)(tm, s, u, t, d, al, A, B)
#define teamvector_trmm(tm, s, u, t, d, al, A, B)                              \
  SK__LA_G(teamvector_trmm, B)(tm, s, u, t, d, al, A, B)
#define team_trtri(tm, u, d, A) SK__LA_G(team_trtri, A)(tm, u, d, A)
#define teamvector_trtri(tm, u, d, A) SK__LA_G(teamvector_trtri, A)(tm, u, d, A)
#define team_lu(tm, A) SK__LA_G(team_lu, A)(tm, A)
#define teamvector_lu(tm, A) SK__LA_G(teamvector_lu, A)(tm, A)
#define team_getrf(tm, A, p, ps) SK__LA_G(team_getrf, A)(tm, A, p, ps)
#define teamvector_getrf(tm, A, p, ps) SK__LA_G(teamvector_getrf, A)(tm, A, p, ps)
#define team_getrs(tm, A, p, ps, B) SK__LA_G(team_getrs, B)(tm, A, p, ps, B)
#define teamvector_getrs(tm, A, p, ps, B) SK__LA_G(teamvector_getrs, B)(tm, A, p, ps, B)
#define team_gesv(tm, A, p, ps, B) SK__LA_G(team_gesv, B)(tm, A, p, ps, B)
#define teamvector_gesv(tm, A, p, ps, B) SK__LA_G(teamvector_gesv, B)(tm, A, p, ps, B)
#endif

#endif
