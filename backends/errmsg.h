/* backends/errmsg.h: the back ends' own messages, a part of the one
 * message table (core/errmsg.h includes it at its end; no include guard).
 * A line per back end with messages of its own, as backends/registry.c
 * lists the back ends. */
#include "backends/cuda/errmsg.h"
