# SPDX-License-Identifier: GPL-2.0
"""The kernel tree and the series: the patches in order and their digest,
Debian's linux-source unpacked into the cache as a git tree with the
series applied by git am (or a user's tree, applied with git apply), the
edits made to the suite's files for one build only (the debug build's
broken case, the faults build's hooks), and checkpatch --strict as a
maintainer's tree runs it.  It may import configs and base."""
