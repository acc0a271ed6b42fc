/* SPDX-License-Identifier: Apache-2.0 */
/*
 * commands.h — the command tables of the scrollcase command, one per group,
 * each in its own file.  A table is an array of sc_cli_command (args.h)
 * ended by a row whose words are NULL; sc_cli_commands gathers them all.
 * Each row names the function that runs the command once the one parser
 * (sc_cli_parse) has checked its options and operands.
 */
#ifndef SC_CLI_COMMANDS_H
#define SC_CLI_COMMANDS_H

#include "args.h"

/* scroll check, target-id, migrate, help (main.c) */
extern const sc_cli_command sc_cli_main_commands[];
/* keygen, sign, verify-document, channel resolve (cmd_documents.c) */
extern const sc_cli_command sc_cli_documents_commands[];
/* verify, prepare, attach, run (cmd_box.c) */
extern const sc_cli_command sc_cli_box_commands[];
/* parity compare, gpu probe, compat (cmd_parity.c) */
extern const sc_cli_command sc_cli_parity_commands[];
/* build (cmd_build.c) */
extern const sc_cli_command sc_cli_build_commands[];
/* doctor, lock, env-install (cmd_env.c) */
extern const sc_cli_command sc_cli_env_commands[];
/* init, new scroll, add, remove, edit scroll, refresh (cmd_author.c) */
extern const sc_cli_command sc_cli_author_commands[];
/* audit, audit cuda (cmd_audit.c) */
extern const sc_cli_command sc_cli_audit_commands[];
/* inspect, diff (cmd_inspect.c) */
extern const sc_cli_command sc_cli_inspect_commands[];
/* cache ls, cache gc (cmd_cache.c) */
extern const sc_cli_command sc_cli_cache_commands[];
/* install (cmd_install.c) */
extern const sc_cli_command sc_cli_install_commands[];

/* The row that ends a table. */
#define SC_CLI_END {NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL}

#endif
