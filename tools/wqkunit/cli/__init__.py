# SPDX-License-Identifier: GPL-2.0
"""The command line, top of the tools: main() (tools/wq-kunit's entry
point), the commands with their options and help, the checks that refuse
a bad command line before anything runs, and each command's handler,
which calls the stage that does the work.  It may import every other
package; none imports it."""
