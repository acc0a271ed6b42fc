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

#endif
