/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remedy.h — the command lines the tool prints as the way out of a failure.
 *
 * Guarantees: every remedy a message, `doctor` or a tool-missing error
 * prints that names a scrollcase command is one of these macros, so the
 * messages and this list cannot drift apart; sc_remedy_commands() lists them
 * all.  Each is `scrollcase` followed by words that parse against the
 * command line's option table, with upper-case placeholders for operands and
 * option values (REF, SCROLL, PATH, VERSION, CMD); the unit test
 * remedy/every_printed_remedy_parses runs each through the CLI's parser.
 * No state.
 */
#ifndef SCROLLCASE_REMEDY_H
#define SCROLLCASE_REMEDY_H

#ifdef __cplusplus
extern "C" {
#endif

#define SC_REMEDY_KEYGEN "scrollcase keygen"
#define SC_REMEDY_KEYGEN_FORCE "scrollcase keygen --force"
#define SC_REMEDY_KEYGEN_PATHS "scrollcase keygen --private-key PATH --public-key PATH"
#define SC_REMEDY_SIGNER "scrollcase build REF --signer-command CMD"
#define SC_REMEDY_INIT "scrollcase init"
#define SC_REMEDY_MIGRATE "scrollcase migrate REF"
#define SC_REMEDY_AUDIT_WRITE "scrollcase audit SCROLL --write"
#define SC_REMEDY_LOCK "scrollcase lock REF"
#define SC_REMEDY_DOCTOR_PIXI "scrollcase doctor --pixi-version VERSION --pixi PATH"
#define SC_REMEDY_DOCTOR_CONDA_PACK "scrollcase doctor --conda-pack PATH"
#define SC_REMEDY_BUILD_PREFIX "scrollcase build REF --environment-prefix PATH"
#define SC_REMEDY_AUDIT_BINARIES "scrollcase audit binaries PATH"
#define SC_REMEDY_AUDIT_CUDA "scrollcase audit cuda SCROLL"
#define SC_REMEDY_BUILD_PIXI "scrollcase build REF --environment-from pixi"

/* Every remedy above, NULL-terminated, in the order of this header. */
const char *const *sc_remedy_commands(void);

#ifdef __cplusplus
}
#endif

#endif
