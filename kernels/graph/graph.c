/* graph.c: the graph family's registration: one list of entries and one
 * of bodies per file of kernels/graph/, in the order the registry numbers
 * the precompiled variants.
 */
#include "algo.h"
#include "comm.h"

const sk_kentry *const *const sk_graph_entries[] = {sk_gbuild_entries, sk_gio_entries,
                                                    sk_galgo_entries,  sk_grecur_entries,
                                                    sk_gmesh_entries,  sk_gprops_entries,
                                                    sk_gcomm_entries,  sk_gvalues_entries,
                                                    sk_gread_entries,  NULL};
const sk_kbody *const *const sk_graph_bodies[] = {sk_gbuild_bodies,
                                                  sk_gbfs_bodies,
                                                  sk_gcc_bodies,
                                                  sk_gpr_bodies,
                                                  sk_gtri_bodies,
                                                  sk_gcolor_bodies,
                                                  sk_gmis_bodies,
                                                  sk_galgo_bodies,
                                                  sk_grecur_bodies,
                                                  sk_gmesh_bodies,
                                                  sk_gprops_bodies,
                                                  sk_gkcore_bodies,
                                                  sk_gscc_bodies,
                                                  sk_glpa_bodies,
                                                  sk_glouvain_bodies,
                                                  sk_gvalues_bodies,
                                                  sk_gsssp_bodies,
                                                  sk_gbc_bodies,
                                                  NULL};
