#pragma once
// What maptrip's stroker and filler share in walking their pieces row by row.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/// The addresses of `n` items (`size` bytes each, an int first row `row_offset` bytes in, within
/// lo ... hi - 1) in `order`, by first row, items of one row in the order given: a counting sort, one
/// pass over the items and one over the rows. Returns 0 when out of memory (nothing ordered).
static inline int order_by_first_row(void *items, size_t size, size_t row_offset, int n, int lo, int hi,
                                     void **order) {
    if (n <= 0) return 1;
    const int rows = hi > lo ? hi - lo : 1;
    int *start = calloc((size_t)rows + 1, sizeof(int));
    if (!start) return 0;
    char *base = items;
    for (int i = 0; i < n; i++) {
        int row;
        memcpy(&row, base + (size_t)i * size + row_offset, sizeof row);
        start[row - lo + 1]++;
    }
    for (int r = 0; r < rows; r++) start[r + 1] += start[r];
    for (int i = 0; i < n; i++) {
        int row;
        memcpy(&row, base + (size_t)i * size + row_offset, sizeof row);
        order[start[row - lo]++] = base + (size_t)i * size;
    }
    free(start);
    return 1;
}
