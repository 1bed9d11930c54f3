"""kernelrank.corpora — readers, writers, checksums and download for every data set we use.

* :mod:`corpora.ppi_xml` — PPI learning-format XML (and the interaction-XML variant);
* :mod:`corpora.svmlight` — LETOR / SVMlight files (:func:`load_svmlight`, :func:`dump_svmlight`);
* :mod:`corpora.fasta`, :mod:`corpora.scop` — FASTA and the SCOP 1.53 benchmark;
* :mod:`corpora.conllu` — CoNLL-U gold dependency trees (CRAFT);
* :mod:`corpora.text_input` — raw text for extraction, one door to the readers of
  :mod:`corpora.pubtator`, :mod:`corpora.pubmed_xml`, :mod:`corpora.plain_text`,
  :mod:`corpora.learning_text` (learning XML as raw-text documents) and :mod:`corpora.bioc`
  (BioC XML / JSON), on the document model of :mod:`corpora.documents`;
  :mod:`corpora.standoff` — mention alignment repair and merging;
* :mod:`corpora.lines` — plain or gzip text lines, read failures located by line;
* :mod:`corpora.fetch` — checksum-verified download (``python -m corpora fetch``);
* :mod:`kernelrank.datadir`, :mod:`kernelrank.atomic` — where data lives, atomic output.
"""

from kernelrank.lazy import lazy_exports

# imported on first use (PEP 562): `python -m corpora --help` loads no NumPy / SciPy
_LAZY = {"dump_svmlight": "corpora.svmlight", "load_svmlight": "corpora.svmlight",
         "resolve_data_dir": "kernelrank.datadir"}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
