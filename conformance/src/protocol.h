/* SPDX-License-Identifier: Apache-2.0 */
/*
 * protocol.h — the names and numbers of the adapter protocol
 * (conformance/README.md section 3), shared by the runner and the built-in
 * adapter: the protocol version (MAJOR.MINOR of conformance/VERSION, passed
 * in by CMake), the exit statuses of a one-shot call, and the operations
 * and feature tags an adapter may name in --hello.
 */
#ifndef SC_CONFORM_PROTOCOL_H
#define SC_CONFORM_PROTOCOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SC_CONFORM_PROTOCOL
#define SC_CONFORM_PROTOCOL "0.0"
#endif
#ifndef SC_CONFORM_PROTOCOL_MAJOR
#define SC_CONFORM_PROTOCOL_MAJOR 0
#endif
/* The oldest protocol major version the runner still speaks (with a warning). */
#define SC_CONFORM_PROTOCOL_OLDEST 1

/* Exit statuses of a one-shot call (protocol 2). */
#define SC_PROTO_EXIT_OK 0
#define SC_PROTO_EXIT_REJECTED 1
#define SC_PROTO_EXIT_UNSUPPORTED 77
/* Protocol 1 only: exit 2 meant "unsupported". */
#define SC_PROTO1_EXIT_UNSUPPORTED 2

/* Names a port may add to --hello without the runner knowing them. */
#define SC_PROTO_EXTENSION_PREFIX "x-"

/* NULL-terminated, sorted by name. */
extern const char *const sc_proto_operations[];
extern const char *const sc_proto_features[];

/* 1 when name is a known operation / feature tag, or an extension. */
int sc_proto_operation_known(const char *name);
int sc_proto_feature_known(const char *name);

/* The known name closest to an unknown one (edit distance at most 3), or
 * NULL: for "did you mean" in messages. */
const char *sc_proto_suggest(const char *name, const char *const *known);

#ifdef __cplusplus
}
#endif

#endif
