/* embed.c: a host program that embeds speck. It shares a C array with a
 * script without copying it (speck_vm_set_view), lets the script run a
 * parallel kernel on it, then checks the result in C.
 *
 *   cc embed.c -I<prefix>/include <prefix>/lib/libspeck.a -llua5.4 ...
 *
 * Prints OK and exits 0 when every element is as expected.
 */
#include <stdio.h>
#include <stdlib.h>

#include "speck.h"

int main(void) {
  enum { N = 1000 };
  static double x[N];
  char err[1024];
  for (int i = 0; i < N; i++) x[i] = i;

  speck_vm *vm = speck_vm_new(NULL, err, sizeof err);
  if (vm == NULL) {
    fprintf(stderr, "embed: cannot create a speck VM: %s\n", err);
    return 1;
  }

  const int64_t n = N;
  if (speck_vm_set_view(vm, "x", x, "float64", 1, &n, NULL, err, sizeof err) !=
      SPECK_OK) {
    fprintf(stderr, "embed: %s\n", err);
    speck_vm_free(vm);
    return 1;
  }

  /* x(i) = 2 x(i) + 1 in place, then a reduction read back by the host */
  const char *script = "speck.parallel_for('scale', x:extent(0), {x = x},\n"
                       "                   'x(i) = 2*x(i) + 1;')\n"
                       "total = speck.parallel_reduce('sum', x:extent(0), {x = x},\n"
                       "                              'acc += x(i);')\n";
  if (speck_vm_dostring(vm, script, err, sizeof err) != SPECK_OK) {
    fprintf(stderr, "embed: %s\n", err);
    speck_vm_free(vm);
    return 1;
  }

  int bad = 0;
  for (int i = 0; i < N; i++) {
    if (x[i] != 2.0 * i + 1.0) {
      if (bad++ < 5)
        fprintf(stderr, "embed: x[%d] = %g, want %g\n", i, x[i], 2.0 * i + 1.0);
    }
  }

  /* sum of 2i + 1 for i < N is N^2 */
  if (speck_vm_dostring(vm, "assert(total == 1000000, 'total ' .. total)", err,
                        sizeof err) != SPECK_OK) {
    fprintf(stderr, "embed: %s\n", err);
    bad++;
  }
  speck_vm_free(vm);

  if (bad) {
    fprintf(stderr, "embed: %d mismatches\n", bad);
    return 1;
  }
  printf("OK: %d elements scaled in place by a speck kernel\n", N);
  return 0;
}
