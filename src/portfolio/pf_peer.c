/* pf_peer.c: cuBLAS (linked) and cuDNN (loaded at run time) as peers. */
#include "pf_peer.h"

#include "cm_error.h"
#include "cm_str.h"
#include "platform.h"

#include <cublas_v2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuDNN's ABI, declared here so that the build needs no cuDNN headers and
 * the binary runs without cuDNN. Values are cuDNN 9's. */
typedef int cudnn_status; /* 0 is CUDNN_STATUS_SUCCESS */
typedef void *cudnn_handle;
typedef void *cudnn_tensor;
enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9 };
enum { CUDNN_SOFTMAX_ACCURATE = 1 };
enum { CUDNN_SOFTMAX_MODE_INSTANCE = 0 };

typedef struct {
  void *lib;
  cudnn_handle h;
  cudnn_tensor desc;
  /* the shape the descriptor holds, so it is set once per case rather than
   * on every (timed) launch */
  int dt;
  int64_t rows, cols, stride;
  cudnn_status (*create)(cudnn_handle *);
  cudnn_status (*destroy)(cudnn_handle);
  cudnn_status (*set_stream)(cudnn_handle, cudaStream_t);
  cudnn_status (*create_desc)(cudnn_tensor *);
  cudnn_status (*destroy_desc)(cudnn_tensor);
  cudnn_status (*set_desc)(cudnn_tensor, int, int, int, int, int, int, int, int,
                           int);
  cudnn_status (*softmax)(cudnn_handle, int, int, const void *, cudnn_tensor,
                          const void *, const void *, cudnn_tensor, void *);
  const char *(*errstr)(cudnn_status);
} pf__cudnn;

struct pf_peer {
  cublasHandle_t blas;
  char blas_why[160]; /* "" when cuBLAS is usable */
  pf__cudnn dnn;
  char dnn_why[256]; /* "" when cuDNN is usable */
};

static void sym(void *lib, const char *name, void *fnptr_out) {
  void *p = plat_dl_sym(lib, name);
  memcpy(fnptr_out, &p, sizeof p);
}

static void cudnn_load(pf_peer *p) {
  static const char *const names[] = {"libcudnn.so.9", "libcudnn_ops.so.9",
                                      "cudnn64_9.dll", "cudnn_ops64_9.dll",
                                      NULL};
  pf__cudnn *d = &p->dnn;
  int i;
  for (i = 0; names[i] != NULL && d->lib == NULL; i++)
    d->lib = plat_dl_open(names[i]);
  if (d->lib == NULL) {
    cm_snprintf(p->dnn_why, sizeof p->dnn_why, "cuDNN 9 not found: %s",
                plat_dl_error());
    return;
  }
  sym(d->lib, "cudnnCreate", &d->create);
  sym(d->lib, "cudnnDestroy", &d->destroy);
  sym(d->lib, "cudnnSetStream", &d->set_stream);
  sym(d->lib, "cudnnCreateTensorDescriptor", &d->create_desc);
  sym(d->lib, "cudnnDestroyTensorDescriptor", &d->destroy_desc);
  sym(d->lib, "cudnnSetTensor4dDescriptorEx", &d->set_desc);
  sym(d->lib, "cudnnSoftmaxForward", &d->softmax);
  sym(d->lib, "cudnnGetErrorString", &d->errstr);
  if (!d->create || !d->destroy || !d->set_stream || !d->create_desc ||
      !d->destroy_desc || !d->set_desc || !d->softmax) {
    cm_strlcpy(p->dnn_why,
               "cuDNN loaded but lacks the legacy softmax API "
               "(cudnnSoftmaxForward, cudnnSetTensor4dDescriptorEx)",
               sizeof p->dnn_why);
    return;
  }
  if (d->create(&d->h) != 0) {
    cm_strlcpy(p->dnn_why, "cudnnCreate failed (no device or driver?)",
               sizeof p->dnn_why);
    d->h = NULL;
    return;
  }
  if (d->create_desc(&d->desc) != 0) {
    cm_strlcpy(p->dnn_why, "cudnnCreateTensorDescriptor failed",
               sizeof p->dnn_why);
    d->desc = NULL;
    return;
  }
  d->dt = -1;
}

int pf_peer_open(pf_peer **out) {
  pf_peer *p = calloc(1, sizeof *p);
  cublasStatus_t s;
  *out = NULL;
  if (p == NULL)
    return CM_ENOMEM;
  s = cublasCreate(&p->blas);
  if (s != CUBLAS_STATUS_SUCCESS) {
    cm_snprintf(p->blas_why, sizeof p->blas_why, "cublasCreate failed: %s",
                cublasGetStatusString(s));
    p->blas = NULL;
  } else {
    /* Default math: tensor cores for fp16/bf16 inputs, but never TF32 for
     * fp32 (that needs CUBLAS_TF32_TENSOR_OP_MATH), matching our fp32
     * kernels' arithmetic. Set explicitly so a changed default would show. */
    cublasSetMathMode(p->blas, CUBLAS_DEFAULT_MATH);
  }
  cudnn_load(p);
  *out = p;
  return CM_OK;
}

void pf_peer_close(pf_peer *p) {
  if (p == NULL)
    return;
  if (p->blas != NULL)
    cublasDestroy(p->blas);
  if (p->dnn.desc != NULL)
    p->dnn.destroy_desc(p->dnn.desc);
  if (p->dnn.h != NULL)
    p->dnn.destroy(p->dnn.h);
  /* The cuDNN library stays loaded: unloading libraries that registered
   * CUDA kernels is a known source of crashes at exit. */
  free(p);
}

const char *pf_peer_name(const char *op) {
  if (op == NULL)
    return NULL;
  if (strcmp(op, "matmul") == 0)
    return "cublasGemmEx";
  if (strcmp(op, "softmax") == 0)
    return "cudnnSoftmaxForward";
  if (strcmp(op, "copy") == 0)
    return "cudaMemcpyAsync";
  return NULL;
}

const char *pf_peer_absent_reason(const pf_peer *p, const char *op) {
  if (pf_peer_name(op) == NULL)
    return "no library peer for this op";
  if (p == NULL)
    return "peers not initialised";
  if (strcmp(op, "matmul") == 0)
    return p->blas_why[0] ? p->blas_why : NULL;
  if (strcmp(op, "copy") == 0)
    return NULL; /* the runtime's own copy: always there */
  return p->dnn_why[0] ? p->dnn_why : NULL;
}

static int fits_int(int64_t v) {
  return v >= 0 && v <= INT_MAX;
}

int pf_peer_gemm(pf_peer *p, cpk_dtype dt, const void *a, const void *b,
                 void *c, cpk_gemm g, cudaStream_t stream) {
  static const float one = 1.0f, zero = 0.0f;
  cudaDataType_t t;
  cublasStatus_t s;
  if (p == NULL || p->blas == NULL)
    return CM_ENOTSUP;
  switch (dt) {
  case CPK_F32:
    t = CUDA_R_32F;
    break;
  case CPK_F16:
    t = CUDA_R_16F;
    break;
  case CPK_BF16:
    t = CUDA_R_16BF;
    break;
  default:
    return CM_EINVAL;
  }
  if (!fits_int(g.m) || !fits_int(g.n) || !fits_int(g.k) || !fits_int(g.lda) ||
      !fits_int(g.ldb) || !fits_int(g.ldc))
    return CM_ENOTSUP;
  if (cublasSetStream(p->blas, stream) != CUBLAS_STATUS_SUCCESS)
    return CM_ECUBLAS;
  /* Row-major C (M x N, ldc) is column-major C^T (N x M, ldc). C^T =
   * op(B)^T op(A)^T: cuBLAS's first operand is our B, its second our A. A
   * row-major B that is not transposed is, read column-major, already B^T,
   * so it is passed with OP_N; a transposed one with OP_T. Same for A. */
  s = cublasGemmEx(p->blas, g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                   g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, (int)g.n, (int)g.m,
                   (int)g.k, &one, b, t, (int)g.ldb, a, t, (int)g.lda, &zero, c,
                   t, (int)g.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cublasGemmEx: %s\n", cublasGetStatusString(s));
    return CM_ECUBLAS;
  }
  return CM_OK;
}

int pf_peer_softmax(pf_peer *p, cpk_dtype dt, const void *x, void *y,
                    cpk_rows shape, cudaStream_t stream) {
  static const float one = 1.0f, zero = 0.0f;
  pf__cudnn *d;
  int t;
  cudnn_status s;
  if (p == NULL || p->dnn_why[0] != '\0')
    return CM_ENOTSUP;
  d = &p->dnn;
  switch (dt) {
  case CPK_F32:
    t = CUDNN_DATA_FLOAT;
    break;
  case CPK_F16:
    t = CUDNN_DATA_HALF;
    break;
  case CPK_BF16:
    t = CUDNN_DATA_BFLOAT16;
    break;
  default:
    return CM_EINVAL;
  }
  if (!fits_int(shape.rows) || !fits_int(shape.cols) || !fits_int(shape.stride))
    return CM_ENOTSUP;
  if (d->dt != t || d->rows != shape.rows || d->cols != shape.cols ||
      d->stride != shape.stride) {
    s = d->set_desc(d->desc, t, (int)shape.rows, (int)shape.cols, 1, 1,
                    (int)shape.stride, 1, 1, 1);
    if (s != 0) {
      fprintf(stderr, "cudnnSetTensor4dDescriptorEx: %s\n",
              d->errstr ? d->errstr(s) : "error");
      return CM_ENOTSUP;
    }
    d->dt = t;
    d->rows = shape.rows;
    d->cols = shape.cols;
    d->stride = shape.stride;
  }
  if (d->set_stream(d->h, stream) != 0)
    return CM_EINTERNAL;
  /* alpha and beta are float for half and bfloat16 data too (cuDNN's
   * scaling-parameter rule). */
  s = d->softmax(d->h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                 &one, d->desc, x, &zero, d->desc, y);
  if (s != 0) {
    fprintf(stderr, "cudnnSoftmaxForward: %s\n",
            d->errstr ? d->errstr(s) : "error");
    return CM_EINTERNAL;
  }
  return CM_OK;
}

int pf_peer_copy(pf_peer *p, void *dst, const void *src, size_t bytes,
                 cudaStream_t stream) {
  cudaError_t e;
  (void)p;
  e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return CM_ECUDA;
  }
  return CM_OK;
}

int pf_peer_copy_launch(void *ctx, int set, cudaStream_t stream) {
  pf_copy_ceiling *c = ctx;
  (void)set;
  return pf_peer_copy(NULL, c->dst, c->src, c->bytes, stream);
}

size_t pf_peer_copy_bytes(size_t l2_bytes) {
  size_t b = 8 * l2_bytes, floor_b = (size_t)64 << 20;
  if (b < floor_b)
    b = floor_b;
  return (b + 4095) & ~(size_t)4095;
}
