# SPDX-License-Identifier: GPL-2.0
"""wq-kunit: run the workqueue CPU-selection KUnit suite on Debian's kernels."""
