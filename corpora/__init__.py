"""kernelrank.corpora — readers, writers, checksums and download for every data set we use.

* :mod:`corpora.ppi_xml` — PPI learning-format XML (and the interaction-XML variant);
* :mod:`corpora.svmlight` — LETOR / SVMlight files (:func:`load_svmlight`, :func:`dump_svmlight`);
* :mod:`corpora.fasta`, :mod:`corpora.scop` — FASTA and the SCOP 1.53 benchmark;
* :mod:`corpora.conllu` — CoNLL-U gold dependency trees (CRAFT);
* :mod:`corpora.lines` — plain or gzip text lines, read failures located by line;
* :mod:`corpora.fetch` — checksum-verified download (``python -m corpora fetch``);
* :mod:`kernelrank.datadir`, :mod:`kernelrank.atomic` — where data lives, atomic output.
"""

from kernelrank.datadir import resolve_data_dir
from corpora.svmlight import dump_svmlight, load_svmlight

__all__ = ["dump_svmlight", "load_svmlight", "resolve_data_dir"]
