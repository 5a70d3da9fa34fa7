/* tool.c: a Kokkos Tools library for the tests (tools_spec.lua), built
 * against nothing of speck: the kokkosp_* hooks with Kokkos' ABI, each
 * appending one line to the file named by TOOL_LOG. Built twice: the
 * second copy (-DTOOL_ID_BASE=5000 -DTOOL_LOG_VAR=\"TOOL_LOG2\") hands out
 * other ids and logs elsewhere. An end hook given an id this library did
 * not hand out (or ended already) logs it as "foreign"; a begin hook
 * given an empty name logs "(empty)"; kokkosp_parse_args logs its
 * arguments. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  char name[64];
} SpaceHandle;
typedef struct {
  uint32_t deviceID;
} KokkosPDeviceInfo;

#ifndef TOOL_ID_BASE
#define TOOL_ID_BASE 100
#endif
#ifndef TOOL_LOG_VAR
#define TOOL_LOG_VAR "TOOL_LOG"
#endif

static FILE *out;
static uint64_t next = TOOL_ID_BASE;
static unsigned char open_ids[4096]; /* ids begun and not ended */

static const char *ours(uint64_t id) {
  if (id < TOOL_ID_BASE || id >= TOOL_ID_BASE + sizeof open_ids ||
      !open_ids[id - TOOL_ID_BASE])
    return " foreign";
  open_ids[id - TOOL_ID_BASE] = 0;
  return "";
}

static void line(const char *fmt, const char *a, const char *b, unsigned long long n) {
  if (!out) return;
  fprintf(out, fmt, a, b, n);
  fputc('\n', out);
  fflush(out);
}

void kokkosp_init_library(int seq, uint64_t version, uint32_t ndev,
                          KokkosPDeviceInfo *d) {
  const char *path = getenv(TOOL_LOG_VAR);
  out = path ? fopen(path, "a") : NULL;
  (void)seq;
  (void)d;
  line("init %s%s%llu", "", "", (unsigned long long)version + 0 * ndev);
}

void kokkosp_finalize_library(void) {
  line("finalize%s%s", "", "", 0);
  if (out) fclose(out);
  out = NULL;
}

static void begin(const char *what, const char *name, uint64_t *id) {
  *id = next++;
  if (*id - TOOL_ID_BASE < sizeof open_ids) open_ids[*id - TOOL_ID_BASE] = 1;
  line("begin_%s %s %llu", what, name && *name ? name : "(empty)", (unsigned long long)*id);
}

void kokkosp_parse_args(int argc, char **argv) {
  if (!out) return;
  fprintf(out, "args %d", argc);
  for (int i = 0; i < argc; i++) fprintf(out, " [%s]", argv[i]);
  fputc('\n', out);
  fflush(out);
}

void kokkosp_begin_parallel_for(const char *n, uint32_t dev, uint64_t *id) {
  (void)dev;
  begin("for", n, id);
}
void kokkosp_begin_parallel_reduce(const char *n, uint32_t dev, uint64_t *id) {
  (void)dev;
  begin("reduce", n, id);
}
void kokkosp_begin_parallel_scan(const char *n, uint32_t dev, uint64_t *id) {
  (void)dev;
  begin("scan", n, id);
}
void kokkosp_end_parallel_for(uint64_t id) {
  if (out) fprintf(out, "end_for %llu%s\n", (unsigned long long)id, ours(id));
  if (out) fflush(out);
}
void kokkosp_end_parallel_reduce(uint64_t id) {
  if (out) fprintf(out, "end_reduce %llu%s\n", (unsigned long long)id, ours(id));
  if (out) fflush(out);
}
void kokkosp_end_parallel_scan(uint64_t id) {
  if (out) fprintf(out, "end_scan %llu%s\n", (unsigned long long)id, ours(id));
  if (out) fflush(out);
}
void kokkosp_begin_fence(const char *n, uint32_t dev, uint64_t *id) {
  (void)dev;
  begin("fence", n, id);
}
void kokkosp_end_fence(uint64_t id) {
  if (out) fprintf(out, "end_fence %llu%s\n", (unsigned long long)id, ours(id));
  if (out) fflush(out);
}
void kokkosp_push_profile_region(const char *n) { line("push %s%s", n, "", 0); }
void kokkosp_pop_profile_region(void) { line("pop%s%s", "", "", 0); }
void kokkosp_allocate_data(SpaceHandle s, const char *label, const void *p,
                           uint64_t size) {
  (void)p;
  line("alloc %s %s %llu", s.name, label, (unsigned long long)size);
}
void kokkosp_deallocate_data(SpaceHandle s, const char *label, const void *p,
                             uint64_t size) {
  (void)p;
  line("dealloc %s %s %llu", s.name, label, (unsigned long long)size);
}
void kokkosp_begin_deep_copy(SpaceHandle ds, const char *dn, const void *dp,
                             SpaceHandle ss, const char *sn, const void *sp,
                             uint64_t size) {
  (void)dp;
  (void)sp;
  (void)ds;
  (void)ss;
  line("copy %s<-%s %llu", dn, sn, (unsigned long long)size);
}
void kokkosp_end_deep_copy(void) { line("end_copy%s%s", "", "", 0); }
