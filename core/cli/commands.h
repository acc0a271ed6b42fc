/* SPDX-License-Identifier: Apache-2.0 */
/*
 * commands.h — command groups of the scrollcase command that live outside
 * main.c.  Each group parses its own options (the workspace options
 * included) and prints; the rules are in the library.
 */
#ifndef SC_CLI_COMMANDS_H
#define SC_CLI_COMMANDS_H

/*
 * If the command word of argv (the first argument that is not an option or
 * an option's value) is keygen, sign, verify-document or channel, run it, store its
 * exit status in *status and return 1; otherwise return 0 and do nothing.
 */
int sc_cli_documents_dispatch(int argc, char **argv, int *status);

/* Print the help of keygen, sign, verify-document or channel; -1 otherwise. */
int sc_cli_documents_help(const char *cmd);

/*
 * Later command groups, each in its own cmd_<group>.c, declared weak so a
 * group that is not linked in is simply absent.  Same contract as
 * sc_cli_documents_dispatch / _help.
 */
/* Each group's lines for the command list of `scrollcase --help` (every
 * line "  <usage>  <what it does>\n"). */
const char *sc_cli_box_summary(void) __attribute__((weak));
const char *sc_cli_parity_summary(void) __attribute__((weak));
const char *sc_cli_audit_summary(void) __attribute__((weak));
/* verify, prepare, attach, run (cmd_box.c) */
int sc_cli_box_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_box_help(const char *cmd) __attribute__((weak));
/* parity, gpu, compat (cmd_parity.c) */
int sc_cli_parity_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_parity_help(const char *cmd) __attribute__((weak));
/* build (cmd_build.c) */
const char *sc_cli_build_summary(void) __attribute__((weak));
int sc_cli_build_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_build_help(const char *cmd) __attribute__((weak));
/* doctor, lock (cmd_env.c) */
const char *sc_cli_env_summary(void) __attribute__((weak));
int sc_cli_env_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_env_help(const char *cmd) __attribute__((weak));
/* init, new, add, remove, edit, refresh (cmd_author.c) */
const char *sc_cli_author_summary(void) __attribute__((weak));
int sc_cli_author_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_author_help(const char *cmd) __attribute__((weak));
/* audit (cmd_audit.c) */
int sc_cli_audit_dispatch(int argc, char **argv, int *status) __attribute__((weak));
int sc_cli_audit_help(const char *cmd) __attribute__((weak));

#endif
