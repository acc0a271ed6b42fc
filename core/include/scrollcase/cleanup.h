/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cleanup.h — what an interrupted command removes and ends.
 *
 * One process-wide registry of the temporary files and directories a
 * command has made and of the child processes it has started, and one
 * handler for SIGINT, SIGTERM and SIGHUP that, when the program has
 * installed it (sc_cleanup_install), ends the registered children (the
 * signal, then SIGKILL to their process groups after a short grace),
 * removes the registered paths and lets the signal end the process with
 * its default action.  Every module that makes a temporary name registers
 * it here for as long as it exists under that name (sc_file_write_atomic,
 * the prepare stage, the build's scratch directory, install's private
 * directory, ...), so one handler covers every command.
 *
 * Paths are held as a descriptor of their parent and a name there: the
 * handler uses system calls only (openat, getdents64, unlinkat, kill,
 * waitpid), and a rename of a directory above a registered one does not
 * send the cleanup elsewhere.  The table is fixed-size (SC_CLEANUP_SLOTS
 * paths, as many children); registration is thread-safe.  A name made
 * and registered between sc_cleanup_hold and sc_cleanup_release is never
 * missed by the handler (the library holds them with cleanup_internal.h's
 * sc_cleanup_hold).
 */
#ifndef SCROLLCASE_CLEANUP_H
#define SCROLLCASE_CLEANUP_H

#ifdef __cplusplus
extern "C" {
#endif

#define SC_CLEANUP_SLOTS 64

/* Install the handler for SIGINT, SIGTERM and SIGHUP (and ignore SIGXFSZ,
 * so that a write over the file-size limit fails with EFBIG, an io-error,
 * instead of killing the process with its stage left behind).  Off until
 * the program asks; the scrollcase command installs it for every command.
 * Idempotent. */
void sc_cleanup_install(void);

/* 1 once sc_cleanup_install has run. */
int sc_cleanup_installed(void);

/* Register path (a file or directory that exists or is about to be made;
 * its parent must exist): its slot, or -1 when the table is full, the
 * parent cannot be opened or memory runs out.  The handler removes it
 * (a directory with everything in it). */
int sc_cleanup_add_path(const char *path);

/* Forget slot (-1: nothing); remove_now: also remove the path now. */
void sc_cleanup_drop_path(int slot, int remove_now);

/* mkdtemp(tmpl) and register the directory, with the signals held
 * between: 0 and its slot in *slot (-1 when the table is full: the
 * directory is then made but not registered), or -1 with errno. */
int sc_cleanup_mkdtemp(char *tmpl, int *slot);

/* Remove the directory path made by sc_cleanup_mkdtemp and forget its
 * slot (registered or not): 0, or -1 with errno. */
int sc_cleanup_remove_dir(int slot, const char *path);

/* The path of slot as registered ("" when the slot is free). */
const char *sc_cleanup_path(int slot);

/* Register a child process (group: it leads its own process group, which
 * the handler signals as a whole): its slot or -1. */
int sc_cleanup_add_child(long pid, int group);
void sc_cleanup_drop_child(int slot);

/* Run the cleanup and end the process by sig, as the handler does (for a
 * caller that learnt of sig another way, e.g. a child that died by it). */
void sc_cleanup_exit_by_signal(int sig);

/*
 * A test hook, read by sc_cleanup_install: SCROLLCASE_TEST_HOLD=TEXT:FD
 * (FD a socket the test holds the other end of) makes the first registered
 * path whose name contains TEXT, once registered, be written to FD with a
 * newline, and the process wait there for one byte from FD.  A test holds
 * any command at the moment its temporary name exists, signals it, then
 * lets it go on, with no timing involved (core/tests/cli/faults_cli_test.py).
 * Unset (always, outside tests), nothing happens.
 */

#ifdef __cplusplus
}
#endif

#endif
