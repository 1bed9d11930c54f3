"""FASTA reader and writer for protein sequences (via Biopython ``Bio.SeqIO``).

Used by the remote-homology benchmark (``corpora.scop``) and by ``python -m homology
train/predict`` for users' own families. Sequences are returned upper-case. The accepted
alphabet is the IUPAC protein alphabet: the 20 standard amino acids plus the ambiguity /
rare codes ``B Z J U O X`` (the SCOP 1.53 file uses ``x`` for unknown residues). Anything
else (digits, ``*``, ``-``, blanks inside the sequence, ...) is an error naming the record,
never silently dropped.
"""

from dataclasses import dataclass
from pathlib import Path

from Bio import SeqIO
from Bio.SeqIO import FastaIO
from Bio.Seq import Seq
from Bio.SeqRecord import SeqRecord

from kernelrank.atomic import atomic_open
from corpora.lines import open_text, reading
from kernelrank.errors import CorpusFormatError

STANDARD_AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
AMBIGUOUS_AMINO_ACIDS = "BZJUOX"
PROTEIN_ALPHABET = frozenset(STANDARD_AMINO_ACIDS + AMBIGUOUS_AMINO_ACIDS)


@dataclass(frozen=True)
class ProteinRecord:
    """One FASTA record: ``id`` (first word of the header), ``description`` (rest), ``seq``."""

    id: str
    description: str
    seq: str


def _check_header_lines(path):
    """Line number of each record header; errors on text before the first header."""
    starts = []
    with open_text(path, "FASTA file") as handle, reading(path):
        for lineno, line in enumerate(handle, 1):
            if line.startswith(">"):
                starts.append(lineno)
            elif line.strip() and not starts:
                raise CorpusFormatError(
                    "sequence data before the first '>' header; is this a FASTA file?",
                    path=path, line=lineno)
    return starts


def read_fasta(path, *, allow_empty=False):
    """Read protein sequences from a FASTA file (optionally gzip-compressed).

    Parameters
    ----------
    path : path-like
    allow_empty : bool, default False
        Whether a record with an empty sequence is acceptable.

    Returns
    -------
    records : list of ProteinRecord
        In file order, sequences upper-cased.

    Raises
    ------
    CorpusFormatError
        No record, text before the first header, an empty header, a duplicate id, an empty
        sequence, or a residue outside :data:`PROTEIN_ALPHABET` (the message names the file,
        the header line and the record id); text that is not UTF-8, a truncated or damaged
        gzip stream, a directory instead of a file (with the line where it can be told).
    DataNotFoundError
        The file does not exist.
    """
    starts = _check_header_lines(path)
    records, seen = [], {}
    with open_text(path, "FASTA file") as handle, reading(path):
        for lineno, rec in zip(starts, SeqIO.parse(handle, "fasta")):
            if not rec.id:
                raise CorpusFormatError("record with an empty header", path=path, line=lineno)
            if rec.id in seen:
                raise CorpusFormatError(
                    f"duplicate record id (first seen at line {seen[rec.id]})",
                    path=path, line=lineno, record=rec.id)
            seen[rec.id] = lineno
            seq = str(rec.seq).upper()
            bad = sorted(set(seq) - PROTEIN_ALPHABET)
            if bad:
                raise CorpusFormatError(
                    f"unknown residue(s) {bad} (allowed: {STANDARD_AMINO_ACIDS} and "
                    f"{AMBIGUOUS_AMINO_ACIDS}); fix or remove the record",
                    path=path, line=lineno, record=rec.id)
            if not seq and not allow_empty:
                raise CorpusFormatError("empty sequence", path=path, line=lineno, record=rec.id)
            description = rec.description[len(rec.id):].strip()
            records.append(ProteinRecord(rec.id, description, seq))
    if not records:
        raise CorpusFormatError("no FASTA record found", path=path)
    return records


def write_fasta(path, records, *, width=60):
    """Write records atomically as FASTA with Biopython's writer (``width`` residues per line).

    ``records`` is an iterable of :class:`ProteinRecord` or of ``(id, seq)`` pairs.
    """
    out = []
    for rec in records:
        if isinstance(rec, ProteinRecord):
            rid, desc, seq = rec.id, rec.description, rec.seq
        else:
            (rid, seq), desc = rec, ""
        if not rid or any(c.isspace() for c in rid):
            raise CorpusFormatError(f"cannot write record id {rid!r} (empty or with blanks)",
                                    path=path, record=rid)
        out.append(SeqRecord(Seq(seq), id=rid, description=f"{rid} {desc}".strip()))
    with atomic_open(path) as handle:
        FastaIO.FastaWriter(handle, wrap=width).write_file(out)
    return Path(path)
