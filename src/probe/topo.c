/* topo.c — cache sizes as hwloc reports them (one instance of L1d, L2, L3, L4). Only used to
 * compare with the plateaus of the sweep, which are the truth (a VM may report a fake L3). */
#include <string.h>

#include <hwloc.h>

#include "probe/probe_int.h"

void rf__cache_sizes(uint64_t sizes[4])
{
    static const hwloc_obj_type_t types[4] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE};
    hwloc_topology_t t;
    memset(sizes, 0, 4 * sizeof *sizes);
    if (hwloc_topology_init(&t) != 0) return;
    if (hwloc_topology_load(t) == 0)
        for (int i = 0; i < 4; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t, types[i], 0);
            if (o && o->attr) sizes[i] = o->attr->cache.size;
        }
    hwloc_topology_destroy(t);
}
