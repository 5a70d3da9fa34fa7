/* tools.c: Kokkos Tools -- profiling libraries with the Kokkos ABI.
 *
 * KOKKOS_TOOLS_LIBS (or SPECK_TOOLS_LIBS) names tool libraries (';'
 * separated, as Kokkos reads it); each is dlopen'ed once and its
 * kokkosp_* hooks called with Kokkos' argument types, so existing tools
 * (the kernel timer, the memory-event recorder) work unchanged:
 * init/finalize around a runtime's life, begin/end of every parallel_for,
 * parallel_reduce and parallel_scan (user and library kernels, with their
 * labels), allocations and deallocations of views, deep copies, fences and
 * profile regions. With no tool loaded every hook is one relaxed load.
 * A library that cannot be loaded, or has none of the hooks, is skipped
 * with a warning (sk_tools_warning) and the run goes on.
 *
 * Several libraries: each is initialised (its kokkosp_init_library's
 * sequence number its place in the list) and gets every event; each
 * hands out its own kernel and fence ids, and its end hooks get its own
 * id back (a table per event, indexed by speck's id). KOKKOS_TOOLS_ARGS
 * (or SPECK_TOOLS_ARGS), split at spaces, reaches each library's
 * kokkosp_parse_args after its initialisation, argv[0] the library's
 * path, as Kokkos passes it. A kernel or fence without a label reaches
 * tools under a generated name ("speck.parallel_for (unnamed)"): Kokkos
 * never hands a tool an empty name.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tools.h"

/* Kokkos' types (Kokkos_Profiling_C_Interface.h): a space handle is a
 * name in a 64-byte array; device info is one 32-bit id */
typedef struct kp_space {
  char name[64];
} kp_space;
typedef struct kp_device {
  uint32_t device_id;
} kp_device;

typedef void (*init_fn)(int, uint64_t, uint32_t, kp_device *);
typedef void (*fin_fn)(void);
typedef void (*begin_fn)(const char *, uint32_t, uint64_t *);
typedef void (*end_fn)(uint64_t);
typedef void (*region_fn)(const char *);
typedef void (*popr_fn)(void);
typedef void (*mem_fn)(kp_space, const char *, const void *, uint64_t);
typedef void (*bcopy_fn)(kp_space, const char *, const void *, kp_space, const char *,
                         const void *, uint64_t);
typedef void (*ecopy_fn)(void);
typedef void (*args_fn)(int, char **);

#define KP_INTERFACE_VERSION 20211015ULL
#define MAXTOOLS             8

typedef struct tool {
  void *dl;
  init_fn init;
  fin_fn fin;
  begin_fn begin[3]; /* for, reduce, scan */
  end_fn end[3];
  begin_fn begin_fence;
  end_fn end_fence;
  region_fn push;
  popr_fn pop;
  mem_fn alloc, dealloc;
  bcopy_fn begin_copy;
  ecopy_fn end_copy;
  args_fn parse_args;
  char path[256];
} tool;

/* each tool's id of the events in flight: speck's id modulo IDSLOTS */
#define IDSLOTS 4096
static uint64_t tool_ids[IDSLOTS][MAXTOOLS];

static tool tools[MAXTOOLS];
static int ntools;
static int active; /* tools loaded and initialised (atomic) */
static int loaded; /* sk_tools_load ran */
static uint64_t next_id = 1;
static char warning[1024];
static char names[1024];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *sym(void *dl, const char *name) { return dlsym(dl, name); }

static void note(const char *fmt, const char *a, const char *b) {
  size_t n = strlen(warning);
  if (n + 2 >= sizeof warning) return;
  if (n) warning[n++] = '\n';
  snprintf(warning + n, sizeof warning - n, fmt, a, b);
}

/* one library: loaded, and kept only when it has a hook */
static void load_one(const char *path) {
  if (ntools >= MAXTOOLS) {
    note("tool library '%s' not loaded: more than 8 tools%s", path, "");
    return;
  }
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    const char *e = dlerror();
    note("cannot load tool library '%s': %s; running without it", path,
         e ? e : "unknown error");
    return;
  }
  tool *t = &tools[ntools];
  memset(t, 0, sizeof *t);
  t->dl = dl;
  t->init = (init_fn)sym(dl, "kokkosp_init_library");
  t->fin = (fin_fn)sym(dl, "kokkosp_finalize_library");
  t->begin[0] = (begin_fn)sym(dl, "kokkosp_begin_parallel_for");
  t->begin[1] = (begin_fn)sym(dl, "kokkosp_begin_parallel_reduce");
  t->begin[2] = (begin_fn)sym(dl, "kokkosp_begin_parallel_scan");
  t->end[0] = (end_fn)sym(dl, "kokkosp_end_parallel_for");
  t->end[1] = (end_fn)sym(dl, "kokkosp_end_parallel_reduce");
  t->end[2] = (end_fn)sym(dl, "kokkosp_end_parallel_scan");
  t->begin_fence = (begin_fn)sym(dl, "kokkosp_begin_fence");
  t->end_fence = (end_fn)sym(dl, "kokkosp_end_fence");
  t->push = (region_fn)sym(dl, "kokkosp_push_profile_region");
  t->pop = (popr_fn)sym(dl, "kokkosp_pop_profile_region");
  t->alloc = (mem_fn)sym(dl, "kokkosp_allocate_data");
  t->dealloc = (mem_fn)sym(dl, "kokkosp_deallocate_data");
  t->begin_copy = (bcopy_fn)sym(dl, "kokkosp_begin_deep_copy");
  t->end_copy = (ecopy_fn)sym(dl, "kokkosp_end_deep_copy");
  t->parse_args = (args_fn)sym(dl, "kokkosp_parse_args");
  snprintf(t->path, sizeof t->path, "%s", path);
  int any = t->init || t->fin || t->push || t->alloc || t->begin_copy;
  for (int p = 0; p < 3; p++) any |= t->begin[p] || t->end[p];
  if (!any) {
    note("tool library '%s' has no kokkosp_* hook; running without it%s", path, "");
    dlclose(dl);
    return;
  }
  size_t n = strlen(names);
  snprintf(names + n, sizeof names - n, "%s%s", n ? ";" : "", path);
  ntools++;
}

void sk_tools_load(void) {
  pthread_mutex_lock(&lock);
  if (!loaded) {
    loaded = 1;
    const char *env = getenv("KOKKOS_TOOLS_LIBS");
    if (!env || !*env) env = getenv("SPECK_TOOLS_LIBS");
    if (env && *env) {
      char *list = strdup(env), *save = NULL;
      for (char *p = list ? strtok_r(list, ";", &save) : NULL; p;
           p = strtok_r(NULL, ";", &save))
        if (*p) load_one(p);
      free(list);
    }
  }
  pthread_mutex_unlock(&lock);
}

/* KOKKOS_TOOLS_ARGS to one tool: argv[0] its path, then the words */
static void parse_args(tool *t, const char *args) {
  char *copy = strdup(args);
  size_t words = 2;
  for (const char *c = args; *c; c++) words += *c == ' ';
  char **argv = calloc(words + 1, sizeof *argv);
  if (!copy || !argv) {
    free(copy);
    free(argv);
    return;
  }
  int argc = 0;
  argv[argc++] = t->path;
  char *save = NULL;
  for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  t->parse_args(argc, argv);
  free(argv);
  free(copy);
}

void sk_tools_start(void) {
  sk_tools_load();
  pthread_mutex_lock(&lock);
  if (ntools && !active) {
    kp_device dev = {0};
    const char *args = getenv("KOKKOS_TOOLS_ARGS");
    if (!args || !*args) args = getenv("SPECK_TOOLS_ARGS");
    for (int i = 0; i < ntools; i++) {
      if (tools[i].init) tools[i].init(i, KP_INTERFACE_VERSION, 1, &dev);
      if (tools[i].parse_args && args && *args) parse_args(&tools[i], args);
    }
    __atomic_store_n(&active, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
}

void sk_tools_stop(void) {
  pthread_mutex_lock(&lock);
  if (active) {
    __atomic_store_n(&active, 0, __ATOMIC_RELEASE);
    for (int i = ntools - 1; i >= 0; i--)
      if (tools[i].fin) tools[i].fin();
  }
  pthread_mutex_unlock(&lock);
}

int sk_tools_active(void) { return __atomic_load_n(&active, __ATOMIC_RELAXED); }

const char *sk_tools_warning(void) {
  sk_tools_load();
  return warning;
}

const char *sk_tools_names(void) {
  sk_tools_load();
  return names;
}

/* -- events --------------------------------------------------------------- */
static const char *const unnamed[4] = {"speck.parallel_for (unnamed)",
                                       "speck.parallel_reduce (unnamed)",
                                       "speck.parallel_scan (unnamed)", "speck.fence (unnamed)"};

/* speck's id of an event; each tool's own id kept in its slot */
static uint64_t begin_event(begin_fn const *hooks, size_t stride, const char *name) {
  uint64_t id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
  uint64_t *slot = tool_ids[id % IDSLOTS];
  for (int i = 0; i < ntools; i++) {
    begin_fn f = *(begin_fn const *)((const char *)hooks + (size_t)i * stride);
    uint64_t k = id; /* a tool that sets no id gets speck's back */
    if (f) f(name, 0, &k);
    slot[i] = k;
  }
  return id;
}

uint64_t sk_tools_begin(int kind, const char *label) {
  if (!sk_tools_active() || kind < 0 || kind > 2) return 0;
  return begin_event(&tools[0].begin[kind], sizeof(tool),
                     label && *label ? label : unnamed[kind]);
}

void sk_tools_end(int kind, uint64_t id) {
  if (!sk_tools_active() || kind < 0 || kind > 2) return;
  const uint64_t *slot = tool_ids[id % IDSLOTS];
  for (int i = 0; i < ntools; i++)
    if (tools[i].end[kind]) tools[i].end[kind](slot[i]);
}

uint64_t sk_tools_begin_fence(const char *name) {
  if (!sk_tools_active()) return 0;
  return begin_event(&tools[0].begin_fence, sizeof(tool),
                     name && *name ? name : unnamed[3]);
}

void sk_tools_end_fence(uint64_t id) {
  if (!sk_tools_active()) return;
  const uint64_t *slot = tool_ids[id % IDSLOTS];
  for (int i = 0; i < ntools; i++)
    if (tools[i].end_fence) tools[i].end_fence(slot[i]);
}

void sk_tools_push_region(const char *name) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].push) tools[i].push(name);
}

void sk_tools_pop_region(void) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].pop) tools[i].pop();
}

/* Kokkos' names of the memory spaces */
static kp_space handle(int space) {
  kp_space h;
  memset(&h, 0, sizeof h);
  snprintf(h.name, sizeof h.name, "%s", sk_space_tools_name(space));
  return h;
}

void sk_tools_alloc(int space, const char *label, const void *p, uint64_t bytes) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].alloc) tools[i].alloc(handle(space), label, p, bytes);
}

void sk_tools_dealloc(int space, const char *label, const void *p, uint64_t bytes) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].dealloc) tools[i].dealloc(handle(space), label, p, bytes);
}

void sk_tools_begin_copy(const sk_view *dst, const sk_view *src, uint64_t bytes) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].begin_copy)
      tools[i].begin_copy(handle(dst->space), dst->label, dst->data, handle(src->space),
                          src->label, src->data, bytes);
}

void sk_tools_end_copy(void) {
  if (!sk_tools_active()) return;
  for (int i = 0; i < ntools; i++)
    if (tools[i].end_copy) tools[i].end_copy();
}
