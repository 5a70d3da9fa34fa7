/* bcache.h: the host back ends' cache of freed large blocks (bcache.c). */
#ifndef SK_HOST_BCACHE_H
#define SK_HOST_BCACHE_H

#include <stddef.h>
#include <stdint.h>

/* a cached block of at least 'bytes' (NULL: none fits) */
void *sk_bcache_take(size_t bytes);
/* keep freed block 'p' of 'bytes' usable bytes (1) or leave it to the
 * caller to free (0); 'memory': the most the process may have (0: unknown) */
int sk_bcache_put(void *p, size_t bytes, uint64_t memory);
/* free every cached block; returns how many there were */
int sk_bcache_flush(void);

#endif
