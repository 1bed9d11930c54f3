"""Experiments (``exp_*``), one sub-package per application: the measured quality of learners
and systems under a stated protocol, written as JSON and Markdown."""
