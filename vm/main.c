/* main.c: the speck command line, a REPL and script runner in the manner
 * of lua.c, with speck preloaded as the global 'speck'.
 *
 *   speck                      REPL
 *   speck script.lua [args]    run a script ('arg' as in lua)
 *   speck -e 'code'            run a string (may repeat; then a script)
 *   speck --info | --version | --help
 *
 * Exit status: 0 ok, 1 a script error (or a failed chunk when the REPL
 * reads from a pipe, or a malformed SPECK_* environment setting), 2 bad
 * usage. Line editing comes from readline (or
 * libedit) opened with dlopen at run time, so the binary does not depend
 * on it; without either, lines are read plainly.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lualib.h>

#include "api/speck.h"
#include "vm.h"
#include "../backends/remote/remote.h"
#include "core/backend.h"
#include "core/tools.h"

static const char *progname = "speck";

/* -- messages ---------------------------------------------------------- */

static void print_usage(FILE *f) {
  /* the back ends' names and variables come from the registry */
  char names[256] = "", envs[512] = "";
  size_t nn = 0, ne = 0;
  for (const sk_backend *const *b = sk_backend_list(); *b; b++) {
    nn += (size_t)snprintf(names + nn, nn < sizeof names ? sizeof names - nn : 0, "%s%s",
                           nn ? "|" : "", (*b)->name);
    if ((*b)->env)
      ne += (size_t)snprintf(envs + ne, ne < sizeof envs ? sizeof envs - ne : 0,
                             "  %s (the %s back end),\n", (*b)->env, (*b)->name);
  }
  fprintf(f,
          "usage: %s [options] [script [args]]\n"
          "Available options are:\n"
          "  -e stat        execute string 'stat' (may repeat)\n"
          "  -i             enter the REPL after running 'script'\n"
          "  --info         show back ends, threads, compilers and devices\n"
          "  -v, --version  show the version\n"
          "  -h, --help     show this help\n"
          "  --             stop handling options\n"
          "  -              run stdin as a script and stop handling options\n"
          "With no script and no -e, %s starts a REPL ('= expr' prints expr,\n"
          "  views with their elements; Tab completes names; help(f) shows a\n"
          "  function's signature).\n"
          "Environment: SPECK_SPACE (%s), SPECK_THREADS, SPECK_POOL_TINY (0|1),\n"
          "  SPECK_JIT (auto|tcc|cc), SPECK_CC, SPECK_CFLAGS, SPECK_CC_TIMEOUT,\n"
          "  SPECK_CACHE_DIR, SPECK_CACHE=off, SPECK_CACHE_MAX, SPECK_PREBUILT,\n"
          "  SPECK_MEMORY_MAX,"
          " SPECK_JIT_DUMP, SPECK_BOUNDS_CHECK, SPECK_TCC_LIBDIR,\n"
          "  SPECK_REMOTE_DIRECT,"
          " SPECK_DIST_TRANSPORT (mpi|onesided), SPECK_DIST_STAGE (speck.dist),\n"
          "%s"
          "  (see docs/guide.md); a malformed value exits with 1.\n",
          progname, progname, names, envs);
}

static void l_message(const char *pname, const char *msg) {
  if (pname) fprintf(stderr, "%s: ", pname);
  fprintf(stderr, "%s\n", msg);
  fflush(stderr);
}

/* Print the error message at the top of the stack (if any) and pop it. */
static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    l_message(progname, msg ? msg : "(error object is not a string)");
    lua_pop(L, 1);
  }
  return status;
}

/* -- Ctrl-C ------------------------------------------------------------ */
/* While a chunk runs, SIGINT asks running host kernels to stop at their
 * next chunk boundary (speck_interrupt: the launch fails with
 * "interrupted", views intact); when no kernel runs (or at the second
 * Ctrl-C) it sets a hook that raises "interrupted!" at
 * the next Lua instruction (lua.c's 'lstop'), and restores the default
 * action so a second Ctrl-C ends a program stuck in C. At the prompt,
 * SIGINT discards the line being typed. A signal delivered to a worker
 * thread of a back end is forwarded to the main thread. */

static lua_State *globalL = NULL;
static pthread_t main_thread;
static sigjmp_buf prompt_jmp;
static volatile sig_atomic_t prompt_jmp_ok = 0;
static volatile sig_atomic_t prompt_interrupted = 0;

static void setsignal(int sig, void (*handler)(int)) {
  struct sigaction sa;
  sa.sa_handler = handler;
  sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns EINTR */
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static int forward_to_main(int sig) {
  if (pthread_equal(pthread_self(), main_thread)) return 0;
  pthread_kill(main_thread, sig);
  return 1;
}

static void lstop(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted!");
}

static volatile sig_atomic_t kernel_asked = 0;

static void laction(int sig) {
  if (forward_to_main(sig)) return;
  /* the first Ctrl-C while a host kernel runs only stops the kernel at
   * its next chunk boundary: the launch raises "... 'label':
   * interrupted" (a Lua hook would replace that message); the next one
   * does what lua.c does */
  if (!kernel_asked && speck_interrupt()) {
    kernel_asked = 1;
    return;
  }
  int flag = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
  setsignal(sig, SIG_DFL);
  speck_interrupt();
  lua_sethook(globalL, lstop, flag, 1);
}

static void prompt_action(int sig) {
  if (forward_to_main(sig)) return;
  prompt_interrupted = 1;
  if (prompt_jmp_ok) siglongjmp(prompt_jmp, 1);
}

/* -- running chunks ---------------------------------------------------- */

/* Message handler: the message (or its __tostring) plus a traceback. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* Call the chunk below 'narg' arguments, catching errors and Ctrl-C. */
static int docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  globalL = L;
  speck_interrupt_clear();
  kernel_asked = 0;
  setsignal(SIGINT, laction);
  int status = lua_pcall(L, narg, nres, base);
  setsignal(SIGINT, SIG_DFL);
  /* a Ctrl-C that a kernel's "interrupted" error answered first leaves
   * its hook and flag behind: neither may stop the next chunk */
  lua_sethook(L, NULL, 0, 0);
  speck_interrupt_clear();
  lua_remove(L, base);
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK) status = docall(L, 0, 0);
  return report(L, status);
}

static int dostring(lua_State *L, const char *s, const char *name) {
  return dochunk(L, luaL_loadbuffer(L, s, strlen(s), name));
}

/* Push the script arguments (after argv[0] = the script) and return
 * their number. */
static int pushargs(lua_State *L) {
  if (lua_getglobal(L, "arg") != LUA_TTABLE) luaL_error(L, "'arg' is not a table");
  int n = (int)luaL_len(L, -1);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (int i = 1; i <= n; i++) lua_rawgeti(L, -i, i);
  lua_remove(L, -n - 1);
  return n;
}

static int handle_script(lua_State *L, char **argv) {
  const char *fname = argv[0];
  if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0) fname = NULL; /* stdin */
  int status = luaL_loadfile(L, fname);
  if (status == LUA_OK) {
    int n = pushargs(L);
    status = docall(L, n, LUA_MULTRET);
  }
  return report(L, status);
}

/* arg[0] is the script, negative indices the interpreter and options,
 * positive ones the script's arguments (as lua.c). */
static void createargtable(lua_State *L, char **argv, int argc, int script) {
  if (script == argc) script = 0;
  lua_createtable(L, argc - (script + 1), script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* -- options ----------------------------------------------------------- */

enum { HAS_ERROR = 1, HAS_I = 2, HAS_V = 4, HAS_E = 8, HAS_INFO = 16, HAS_HELP = 32 };

/* Scan the options; '*first' receives the index of the script (argc when
 * there is none) or, on HAS_ERROR, of the bad option. */
static int collectargs(char **argv, int *first) {
  int args = 0, i;
  for (i = 1; argv[i] != NULL; i++) {
    const char *a = argv[i];
    *first = i;
    if (a[0] != '-' || strcmp(a, "-") == 0) return args;
    if (strcmp(a, "--") == 0) {
      *first = i + 1;
      return args;
    }
    if (strcmp(a, "--info") == 0) {
      args |= HAS_INFO;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
      args |= HAS_V;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      args |= HAS_HELP;
    } else if (strcmp(a, "-i") == 0) {
      args |= HAS_I;
    } else if (a[1] == 'e') {
      args |= HAS_E;
      if (a[2] == '\0') {
        i++;
        if (argv[i] == NULL) return HAS_ERROR;
      }
    } else {
      return HAS_ERROR;
    }
  }
  *first = i;
  return args;
}

/* Run the -e options in order, up to the script at index 'script'. */
static int runargs(lua_State *L, char **argv, int script) {
  for (int i = 1; i < script; i++) {
    if (argv[i][0] == '-' && argv[i][1] == 'e') {
      const char *chunk = argv[i][2] != '\0' ? argv[i] + 2 : argv[++i];
      if (dostring(L, chunk, "=(command line)") != LUA_OK) return 0;
    }
  }
  return 1;
}

/* -- speck.info() ------------------------------------------------------ */
/* The formatter is Lua: it prints whatever table speck.info() returns,
 * scalars before sub-tables, keys sorted, nested tables indented. */
static const char info_lua[] =
  "local info = speck.info()\n"
  "local function order(t)\n"
  "  local keys = {}\n"
  "  for k in pairs(t) do keys[#keys + 1] = k end\n"
  "  table.sort(keys, function(a, b)\n"
  "    local ta, tb = type(t[a]) == 'table', type(t[b]) == 'table'\n"
  "    if ta ~= tb then return tb end\n"
  "    if type(a) ~= type(b) then return type(a) == 'number' end\n"
  "    return a < b\n"
  "  end)\n"
  "  return keys\n"
  "end\n"
  "local function show(t, indent)\n"
  "  local keys, width = order(t), 0\n"
  "  for _, k in ipairs(keys) do\n"
  "    width = math.max(width, #tostring(k) + 1)\n"
  "  end\n"
  "  for _, k in ipairs(keys) do\n"
  "    local v, name = t[k], tostring(k) .. ':'\n"
  "    if type(v) ~= 'table' then\n"
  "      print(indent .. name .. string.rep(' ', width - #name + 2)\n"
  "            .. tostring(v))\n"
  "    elseif next(v) == nil then\n"
  "      print(indent .. name .. string.rep(' ', width - #name + 2)\n"
  "            .. '(none)')\n"
  "    else\n"
  "      print(indent .. name)\n"
  "      show(v, indent .. '  ')\n"
  "    end\n"
  "  end\n"
  "end\n"
  "print('speck ' .. tostring(info.version or speck.version))\n"
  "show(info, '  ')\n";

/* -- line input -------------------------------------------------------- */
/* readline / libedit, looked up at run time; NULL members mean plain
 * input. */
static struct {
  char *(*readline)(const char *);
  void (*add_history)(const char *);
  int (*read_history)(const char *);
  int (*write_history)(const char *);
  void (*stifle_history)(int);
  /* completion: readline's hook and helpers */
  char **(**attempted_completion)(const char *, int, int);
  char **(*completion_matches)(const char *, char *(*)(const char *, int));
  int *completion_over; /* 1: no file-name completion after ours */
  int *append_character;
  const char **word_break; /* rl_completer_word_break_characters */
  int interactive;         /* stdin is a terminal: prompts, banner */
  char history[4096];
} in;

/* -- completion ------------------------------------------------------ */
/* Tab completes names: speck.repl.complete (Lua) gives the candidates
 * for the word before the cursor ("speck.par", "v:ext"); '.' and ':' do
 * not break words. The Lua state is idle while readline runs, so calling
 * it here is safe; errors are caught and mean no candidates. */
static lua_State *complete_L;
static char **cands; /* malloc'd, NULL-terminated; readline frees each */
static int ncand, icand;

static int push_candidates(lua_State *L) {
  const char *word = lua_tostring(L, 1);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "speck.repl");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "complete");
  lua_pushstring(L, word);
  lua_call(L, 1, 1);
  return 1;
}

static void load_candidates(const char *word) {
  lua_State *L = complete_L;
  for (int i = icand; i < ncand; i++) free(cands[i]);
  free(cands);
  cands = NULL;
  ncand = icand = 0;
  if (L == NULL) return;
  int top = lua_gettop(L);
  lua_pushcfunction(L, push_candidates);
  lua_pushstring(L, word);
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    int n = (int)luaL_len(L, -1);
    cands = calloc((size_t)n + 1, sizeof *cands);
    for (int i = 1; cands != NULL && i <= n; i++) {
      lua_rawgeti(L, -1, i);
      const char *c = lua_tostring(L, -1);
      if (c != NULL && (cands[ncand] = strdup(c)) != NULL) ncand++;
      lua_pop(L, 1);
    }
  }
  lua_settop(L, top);
}

/* readline's generator: state 0 starts a new word */
static char *candidate(const char *word, int state) {
  if (state == 0) load_candidates(word);
  return icand < ncand ? cands[icand++] : NULL;
}

static char **attempt_completion(const char *word, int start, int end) {
  (void)start;
  (void)end;
  if (in.completion_over) *in.completion_over = 1;
  if (in.append_character) *in.append_character = '\0';
  return in.completion_matches(word, candidate);
}

static void *sym(void *lib, const char *name, void *fp, size_t size) {
  void *p = dlsym(lib, name);
  if (p != NULL) memcpy(fp, &p, size);
  return p;
}

static void input_open(void) {
  static const char *const libs[] = {"libreadline.so.8", "libreadline.so", "libedit.so.2",
                                     NULL};
  in.interactive = isatty(STDIN_FILENO);
  if (!in.interactive) return;
  for (int i = 0; libs[i] != NULL && in.readline == NULL; i++) {
    void *lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) continue;
    if (!sym(lib, "readline", &in.readline, sizeof in.readline) ||
        !sym(lib, "add_history", &in.add_history, sizeof in.add_history)) {
      in.readline = NULL;
      dlclose(lib);
      continue;
    }
    const char **rl_name = dlsym(lib, "rl_readline_name");
    if (rl_name != NULL) *rl_name = "speck";
    sym(lib, "read_history", &in.read_history, sizeof in.read_history);
    sym(lib, "write_history", &in.write_history, sizeof in.write_history);
    sym(lib, "stifle_history", &in.stifle_history, sizeof in.stifle_history);
    in.attempted_completion = dlsym(lib, "rl_attempted_completion_function");
    sym(lib, "rl_completion_matches", &in.completion_matches,
        sizeof in.completion_matches);
    in.completion_over = dlsym(lib, "rl_attempted_completion_over");
    in.append_character = dlsym(lib, "rl_completion_append_character");
    in.word_break = dlsym(lib, "rl_completer_word_break_characters");
    if (in.attempted_completion && in.completion_matches) {
      *in.attempted_completion = attempt_completion;
      if (in.word_break) *in.word_break = " \t\n\"'`@$><=;|&{(,+-*/%^~#[]";
    }
  }
  const char *home = getenv("HOME");
  if (in.readline != NULL && home != NULL && home[0] != '\0') {
    snprintf(in.history, sizeof in.history, "%s/.speck_history", home);
    if (in.stifle_history) in.stifle_history(1000);
    if (in.read_history) in.read_history(in.history);
  }
}

static void input_close(void) {
  if (in.history[0] != '\0' && in.write_history) in.write_history(in.history);
}

/* readline() under a Ctrl-C guard: the handler jumps back here (readline
 * has restored the terminal before it re-raises the signal to us). */
static char *read_readline(const char *prompt) {
  char *volatile line = NULL;
  if (sigsetjmp(prompt_jmp, 1) == 0) {
    prompt_jmp_ok = 1;
    setsignal(SIGINT, prompt_action);
    line = in.readline(prompt);
  }
  prompt_jmp_ok = 0;
  setsignal(SIGINT, SIG_DFL);
  return line;
}

/* getline(); Ctrl-C interrupts the read (EINTR) and sets the flag. */
static char *read_plain(const char *prompt) {
  char *line = NULL;
  size_t cap = 0;
  if (in.interactive) {
    fputs(prompt, stdout);
    fflush(stdout);
    setsignal(SIGINT, prompt_action);
  }
  ssize_t n = getline(&line, &cap, stdin);
  setsignal(SIGINT, SIG_DFL);
  if (n < 0) {
    free(line);
    if (prompt_interrupted) clearerr(stdin);
    return NULL;
  }
  if (n > 0 && line[n - 1] == '\n') line[n - 1] = '\0';
  return line;
}

/* Read one line (without its newline) into a malloc'd string; NULL at
 * the end of input. Ctrl-C discards the line and prompts again. */
static char *input_line(const char *prompt) {
  for (;;) {
    prompt_interrupted = 0;
    char *line = in.readline != NULL ? read_readline(prompt) : read_plain(prompt);
    if (!prompt_interrupted) return line;
    free(line);
    fputc('\n', stdout);
    fflush(stdout);
  }
}

/* -- REPL -------------------------------------------------------------- */

/* Set when the chunk being read began "= expr": history stores it as
 * typed, not as the "return expr" that runs. */
static int typed_eq = 0;

/* Read a first line; "= expr" becomes "return expr". Pushes it, or
 * returns 0 at the end of input. */
static int pushline(lua_State *L, int firstline) {
  const char *prompt = in.interactive ? (firstline ? "> " : ">> ") : "";
  char *b = input_line(prompt);
  if (b == NULL) return 0;
  if (firstline) typed_eq = b[0] == '=';
  if (firstline && b[0] == '=') lua_pushfstring(L, "return %s", b + 1);
  else lua_pushstring(L, b);
  free(b);
  return 1;
}

/* add the chunk 'line' (as it runs) to the history as it was typed */
static void add_typed_history(const char *line) {
  static const char ret[] = "return ";
  if (!in.add_history) return;
  if (typed_eq && strncmp(line, ret, sizeof ret - 1) == 0) {
    size_t n = strlen(line + sizeof ret - 1);
    char *t = malloc(n + 2);
    if (t == NULL) return;
    t[0] = '=';
    memcpy(t + 1, line + sizeof ret - 1, n + 1);
    in.add_history(t);
    free(t);
  } else {
    in.add_history(line);
  }
}

/* Try the line as 'return <line>' so expressions print their values. */
static int addreturn(lua_State *L) {
  const char *line = lua_tostring(L, -1);
  const char *retline = lua_pushfstring(L, "return %s;", line);
  int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
  if (status == LUA_OK) {
    lua_remove(L, -2);
    if (line[0] != '\0') add_typed_history(line);
  } else {
    lua_pop(L, 2);
  }
  return status;
}

/* An incomplete chunk is a syntax error that ends at '<eof>'. */
static int incomplete(lua_State *L, int status) {
  static const char mark[] = "<eof>";
  const size_t lmark = sizeof mark - 1;
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg >= lmark && strcmp(msg + lmsg - lmark, mark) == 0) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

/* Read more lines until the chunk compiles or is wrong for another
 * reason. */
static int multiline(lua_State *L) {
  for (;;) {
    size_t len;
    const char *line = lua_tolstring(L, 1, &len);
    int status = luaL_loadbuffer(L, line, len, "=stdin");
    if (!incomplete(L, status) || !pushline(L, 0)) {
      add_typed_history(line);
      return status;
    }
    lua_pushliteral(L, "\n");
    lua_insert(L, -2);
    lua_concat(L, 3);
  }
}

/* Read and compile one chunk: the function, or an error, on the stack. */
static int loadline(lua_State *L) {
  lua_settop(L, 0);
  if (!pushline(L, 1)) return -1;
  int status = addreturn(L);
  if (status != LUA_OK) status = multiline(L);
  lua_remove(L, 1);
  return status;
}

/* Print whatever the chunk returned: views pretty-printed (speck.repl's
 * print, kept in the registry by doREPL), else with the global 'print'. */
static void l_print(lua_State *L) {
  int n = lua_gettop(L);
  if (n > 0) {
    luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
    if (lua_getfield(L, LUA_REGISTRYINDEX, "speck.repl.print") != LUA_TFUNCTION) {
      lua_pop(L, 1);
      lua_getglobal(L, "print");
    }
    lua_insert(L, 1);
    if (lua_pcall(L, n, 0, 0) != LUA_OK)
      l_message(progname,
                lua_pushfstring(L, "error calling 'print' (%s)", lua_tostring(L, -1)));
  }
}

/* Returns 1 when every chunk ran, 0 otherwise. */
static int doREPL(lua_State *L) {
  int status, ok = 1;
  const char *oldprogname = progname;
  progname = NULL;
  /* the REPL's additions (speck.repl): help, the printer, completion */
  if (dostring(L,
               "help = speck.help\n"
               "debug.getregistry()['speck.repl.print'] = "
               "require('speck.repl').print",
               "=repl") != LUA_OK)
    ok = 0;
  complete_L = L;
  input_open();
  if (in.interactive)
    printf("speck %s (%s)  speck.info() shows the back ends; Ctrl-D quits\n",
           SPECK_VERSION, LUA_RELEASE);
  while ((status = loadline(L)) != -1) {
    if (status == LUA_OK) status = docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) l_print(L);
    else ok = 0;
    report(L, status);
    fflush(stdout);
  }
  lua_settop(L, 0);
  if (in.interactive) fputc('\n', stdout);
  fflush(stdout);
  input_close();
  complete_L = NULL;
  load_candidates(""); /* frees what is left */
  progname = oldprogname;
  return ok || in.interactive;
}

/* -- main -------------------------------------------------------------- */

/* Libraries, speck.core preloaded, paths, then 'speck = require "speck"'. */
static int openspeck(lua_State *L) {
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_speck_core);
  lua_setfield(L, -2, "speck.core");
  lua_pop(L, 1);
  sk_vm_setup_paths(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "speck");
  lua_call(L, 1, 1);
  lua_setglobal(L, "speck");
  return 0;
}

/* Everything after option parsing, in protected mode: pushes a boolean,
 * true on success. */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = lua_touserdata(L, 2);
  int script = (int)lua_tointeger(L, 3);
  int args = (int)lua_tointeger(L, 4);
  luaL_checkversion(L);
  lua_pushcfunction(L, openspeck);
  if (docall(L, 0, 0) != LUA_OK) {
    report(L, LUA_ERRRUN);
    return 0;
  }
  createargtable(L, argv, argc, script);
  lua_gc(L, LUA_GCGEN, 0, 0);
  if (args & HAS_INFO) {
    lua_pushboolean(L, dostring(L, info_lua, "=info") == LUA_OK);
    return 1;
  }
  if (!runargs(L, argv, script)) return 0;
  if (script < argc && handle_script(L, argv + script) != LUA_OK) return 0;
  if ((args & HAS_I) || (script == argc && !(args & HAS_E))) {
    if (!doREPL(L)) return 0;
  }
  lua_pushboolean(L, 1);
  return 1;
}

int main(int argc, char **argv) {
  int script = argc;
  main_thread = pthread_self();
  if (argv[0] == NULL || argv[0][0] == '\0') argv[0] = (char *)progname;
  int args = collectargs(argv, &script);
  if (args == HAS_ERROR) {
    const char *bad = argv[script];
    if (bad[1] == 'e') fprintf(stderr, "%s: '%s' needs argument\n", progname, bad);
    else fprintf(stderr, "%s: unrecognized option '%s'\n", progname, bad);
    print_usage(stderr);
    return 2;
  }
  if (args & HAS_HELP) {
    print_usage(stdout);
    return 0;
  }
  if (args & HAS_V) {
    printf("speck %s\n", SPECK_VERSION);
    return 0;
  }
  /* a malformed SPECK_* setting stops the program before any work */
  char env_err[512];
  if (sk_env_check(env_err, sizeof env_err) < 0) {
    l_message(progname, env_err);
    return 1;
  }
  /* Kokkos Tools: a library that cannot be used is a warning, not a stop */
  if (sk_tools_warning()[0]) l_message(progname, sk_tools_warning());
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    l_message(progname, "cannot create state: not enough memory");
    return 1;
  }
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  lua_pushinteger(L, script);
  lua_pushinteger(L, args);
  int status = lua_pcall(L, 4, 1, 0);
  int ok = lua_toboolean(L, -1);
  report(L, status);
  /* an MPI job (speck.remote, more than one rank): an uncaught error
   * (its message printed above) ends every rank, as mpi4py does, unless
   * the script said speck.remote.abort_on_error(false) -- the other
   * ranks would wait for this one in their next collective call */
  if (!(ok && status == LUA_OK) && sk_remote_aborts()) {
    fprintf(stderr, "%s: rank %d: an uncaught error ends the MPI job (MPI_Abort)\n",
            progname, sk_remote_rank());
    fflush(stderr);
    sk_remote_abort(1);
  }
  lua_close(L);
  return (ok && status == LUA_OK) ? 0 : 1;
}
