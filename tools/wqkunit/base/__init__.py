# SPDX-License-Identifier: GPL-2.0
"""The base every stage stands on, knowing nothing of kernels: the error
the tools report in one line, the repository's paths and the cache, what a
command says and the time its phases take, running a short command
(captured) or a long one (a process tree that ends with us), locks,
digests and the stamps that record them, Debian's packages and Debian's
Python, and a host kept busy.  It imports nothing of the tools above it,
only its own modules and the standard library."""
