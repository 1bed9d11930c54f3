"""Link Grammar parser (Sleator & Temperley 1991) through its C library, via ctypes.

Candidate parses for parse ranking (Tsivtsivadze et al. 2005; Paper I §5.2 of Airola
2011) come from the Link Grammar parser. This module binds the Debian package's
``liblink-grammar.so.5`` (``apt-get install link-grammar liblink-grammar5``; the
English dictionary ``link-grammar-dictionaries-en`` comes with it) instead of
re-implementing anything. The C API reports each word's character span in the input
string, which is what alignment to gold tokens needs.

Reproducibility: LG enumerates all linkages when there are at most ``linkage_limit`` of
them; otherwise it draws a random sample (with repeats) and sorts the sample by cost.
``repeatable_rand`` is switched on, which reseeds LG's generator for every sentence, so
the same sentence gives the same linkages whatever order or process it is parsed in.
Spell guessing is switched off (it rewrites biomedical words such as ``mRNA``). Null
links are allowed only when no complete linkage exists (a second parse with
``min_null_count=1``). ``max_parse_time`` counts CPU seconds; a timed-out sentence is
flagged, not silently kept as if normal.

Cost: LG parsing is roughly linear to cubic in sentence length.
"""

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass

from kernelrank.errors import InvalidParameterError, KernelrankError

__all__ = ["LinkGrammarNotFoundError", "LinkGrammarParser", "LGLinkage", "LGParse",
           "is_available", "library_version", "APT_PACKAGES"]

#: Debian packages that provide the library and the English dictionary.
APT_PACKAGES = ("link-grammar", "liblink-grammar5")


class LinkGrammarNotFoundError(KernelrankError, OSError):
    """The Link Grammar C library (or its English dictionary) is not installed."""


_lib = None
_lib_lock = threading.Lock()

_ERROR_HANDLER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


def _load():
    """Load and declare the C functions once per process."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        lib = None
        found = ctypes.util.find_library("link-grammar")
        for target in filter(None, ("liblink-grammar.so.5", found)):
            try:
                lib = ctypes.CDLL(target)
                break
            except OSError:
                continue
        if lib is None:
            raise LinkGrammarNotFoundError(
                "the Link Grammar C library liblink-grammar.so.5 was not found; install it "
                "with `apt-get install " + " ".join(APT_PACKAGES) + "`")
        vp, i, sz, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_double
        decl = {
            "linkgrammar_get_version": (ctypes.c_char_p, []),
            "dictionary_create_lang": (vp, [ctypes.c_char_p]),
            "dictionary_delete": (i, [vp]),
            "parse_options_create": (vp, []),
            "parse_options_delete": (i, [vp]),
            "parse_options_set_verbosity": (None, [vp, i]),
            "parse_options_set_linkage_limit": (None, [vp, i]),
            "parse_options_set_spell_guess": (None, [vp, i]),
            "parse_options_set_max_parse_time": (None, [vp, i]),
            "parse_options_set_repeatable_rand": (None, [vp, ctypes.c_bool]),
            "parse_options_set_min_null_count": (None, [vp, i]),
            "parse_options_set_max_null_count": (None, [vp, i]),
            "parse_options_set_islands_ok": (None, [vp, i]),
            "parse_options_set_disjunct_cost": (None, [vp, d]),
            "parse_options_timer_expired": (i, [vp]),
            "parse_options_reset_resources": (None, [vp]),
            "sentence_create": (vp, [ctypes.c_char_p, vp]),
            "sentence_delete": (None, [vp]),
            "sentence_split": (i, [vp, vp]),
            "sentence_parse": (i, [vp, vp]),
            "sentence_num_linkages_found": (i, [vp]),
            "sentence_num_valid_linkages": (i, [vp]),
            "sentence_num_linkages_post_processed": (i, [vp]),
            "sentence_null_count": (i, [vp]),
            "linkage_create": (vp, [sz, vp, vp]),
            "linkage_delete": (None, [vp]),
            "linkage_get_num_words": (sz, [vp]),
            "linkage_get_num_links": (sz, [vp]),
            "linkage_get_word": (ctypes.c_char_p, [vp, sz]),
            "linkage_get_word_char_start": (sz, [vp, sz]),
            "linkage_get_word_char_end": (sz, [vp, sz]),
            "linkage_get_link_lword": (sz, [vp, sz]),
            "linkage_get_link_rword": (sz, [vp, sz]),
            "linkage_get_link_label": (ctypes.c_char_p, [vp, sz]),
            "linkage_get_violation_name": (ctypes.c_char_p, [vp]),
            "linkage_unused_word_cost": (i, [vp]),
            # 5.12 returns float (older releases: double) — see _disjunct_cost_type below.
            "linkage_disjunct_cost": (ctypes.c_float, [vp]),
            "linkage_link_cost": (i, [vp]),
            "lg_error_set_handler": (vp, [_ERROR_HANDLER_TYPE, vp]),
        }
        for fname, (restype, argtypes) in decl.items():
            try:
                fn = getattr(lib, fname)
            except AttributeError:
                raise LinkGrammarNotFoundError(
                    f"the Link Grammar library lacks {fname}(); version 5.12 "
                    f"(Debian bookworm) or newer is required") from None
            fn.restype, fn.argtypes = restype, argtypes
        # Silence LG's stderr chatter (locale info, "no complete linkage" notes): errors
        # that matter show up as failed calls, which are checked below.
        lib._kr_handler = _ERROR_HANDLER_TYPE(lambda err, data: None)
        lib.lg_error_set_handler(lib._kr_handler, None)
        _lib = lib
        return lib


_DICTS = {}


def _dictionary(language):
    """One dictionary per language and process (loading is costly; it is read-only)."""
    lib = _load()
    with _lib_lock:
        if language not in _DICTS:
            handle = lib.dictionary_create_lang(language.encode())
            if not handle:
                raise LinkGrammarNotFoundError(
                    f"the Link Grammar dictionary for language {language!r} was not found; "
                    f"install link-grammar-dictionaries-{language}")
            _DICTS[language] = handle
        return _DICTS[language]


def is_available(language="en"):
    """True when the C library and the dictionary for ``language`` can be loaded."""
    try:
        _dictionary(language)
    except LinkGrammarNotFoundError:
        return False
    return True


def library_version():
    """The library's version string, e.g. ``'link-grammar-5.12.0'``."""
    return _load().linkgrammar_get_version().decode()


@dataclass(frozen=True)
class LGLinkage:
    """One linkage.

    Attributes
    ----------
    words : tuple of (text, char_start, char_end)
        Index 0 is LEFT-WALL; walls have empty spans. ``text`` is LG's word with its
        dictionary subscript (``levels.n``); null (unlinked) words are shown in brackets
        (``[of]``).
    links : tuple of (left_word_index, right_word_index, label)
    cost : tuple (unused_word_cost, disjunct_cost, link_cost)
        LG's own sort key (VDAL model).
    index : int
        Position of the linkage in LG's cost-sorted output.
    """

    words: tuple
    links: tuple
    cost: tuple
    index: int

    def edge_set(self):
        """Unlabelled word-pair links, the de-duplication key."""
        return frozenset((min(a, b), max(a, b)) for a, b, _ in self.links)


@dataclass(frozen=True)
class LGParse:
    """Result for one sentence: distinct linkages in LG order plus parser statistics."""

    linkages: tuple
    found: int
    examined: int
    null_count: int
    timed_out: bool


class LinkGrammarParser:
    """Parse sentences with Link Grammar and return distinct linkages in LG's order.

    Parameters
    ----------
    max_parses : int, default 20
        Keep at most this many distinct linkages (distinct unlabelled edge sets; LG returns
        exact repeats when it samples). The first kept is LG's own best.
    linkage_limit : int, default 1000
        LG's ``!limit``: how many linkages LG extracts (and sorts by cost) per sentence.
    timeout : int, default 1
        LG's ``max_parse_time`` in CPU seconds.
    spell_guess : bool, default False
    disjunct_cost : float or None
        LG's ``!cost-max``; None keeps the dictionary default.
    language : str, default "en"

    Not thread-safe: use one parser per process (dask's process scheduler does).
    """

    def __init__(self, max_parses=20, linkage_limit=1000, timeout=1, spell_guess=False,
                 disjunct_cost=None, language="en"):
        if int(max_parses) < 1:
            raise InvalidParameterError(f"max_parses must be >= 1, got {max_parses!r}")
        if int(linkage_limit) < int(max_parses):
            raise InvalidParameterError(
                f"linkage_limit ({linkage_limit}) must be >= max_parses ({max_parses})")
        if int(timeout) < 1:
            raise InvalidParameterError(f"timeout must be >= 1 CPU second, got {timeout!r}")
        self.max_parses, self.linkage_limit = int(max_parses), int(linkage_limit)
        self.timeout, self.spell_guess = int(timeout), bool(spell_guess)
        self.disjunct_cost, self.language = disjunct_cost, language
        lib = _load()
        self._lib = lib
        self._dict = _dictionary(language)
        po = lib.parse_options_create()
        lib.parse_options_set_verbosity(po, 0)
        lib.parse_options_set_linkage_limit(po, self.linkage_limit)
        lib.parse_options_set_spell_guess(po, int(self.spell_guess))
        lib.parse_options_set_max_parse_time(po, self.timeout)
        lib.parse_options_set_repeatable_rand(po, True)
        lib.parse_options_set_islands_ok(po, 0)
        if disjunct_cost is not None:
            lib.parse_options_set_disjunct_cost(po, float(disjunct_cost))
        self._po = po

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        if getattr(self, "_po", None):
            lib.parse_options_delete(self._po)
            self._po = None

    def _linkage(self, sent, index):
        lib = self._lib
        lk = lib.linkage_create(index, sent, self._po)
        if not lk:
            return None
        try:
            if lib.linkage_get_violation_name(lk):
                return None
            nw = lib.linkage_get_num_words(lk)
            words = tuple(
                (lib.linkage_get_word(lk, w).decode("utf-8", "replace"),
                 int(lib.linkage_get_word_char_start(lk, w)),
                 int(lib.linkage_get_word_char_end(lk, w))) for w in range(nw))
            links = tuple(
                (int(lib.linkage_get_link_lword(lk, k)), int(lib.linkage_get_link_rword(lk, k)),
                 lib.linkage_get_link_label(lk, k).decode("utf-8", "replace"))
                for k in range(lib.linkage_get_num_links(lk)))
            cost = (int(lib.linkage_unused_word_cost(lk)),
                    round(float(lib.linkage_disjunct_cost(lk)), 4),
                    int(lib.linkage_link_cost(lk)))
            return LGLinkage(words=words, links=links, cost=cost, index=index)
        finally:
            lib.linkage_delete(lk)

    def parse(self, text):
        """Parse ``text``; return an :class:`LGParse` (possibly with no linkages)."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidParameterError("text must be a non-empty string")
        lib, po = self._lib, self._po
        sent = lib.sentence_create(text.encode("utf-8"), self._dict)
        if not sent:
            raise KernelrankError(f"Link Grammar could not create a sentence from {text!r}")
        try:
            if lib.sentence_split(sent, po) < 0:
                return LGParse((), 0, 0, 0, False)
            lib.parse_options_set_min_null_count(po, 0)
            lib.parse_options_set_max_null_count(po, 0)
            lib.parse_options_reset_resources(po)
            n = lib.sentence_parse(sent, po)
            timed_out = bool(lib.parse_options_timer_expired(po))
            if n <= 0 and not timed_out:
                lib.parse_options_set_min_null_count(po, 1)
                lib.parse_options_set_max_null_count(po, 250)
                lib.parse_options_reset_resources(po)
                n = lib.sentence_parse(sent, po)
                timed_out = bool(lib.parse_options_timer_expired(po))
            found = max(int(lib.sentence_num_linkages_found(sent)), 0)
            n_avail = max(int(lib.sentence_num_linkages_post_processed(sent)), 0)
            kept, seen, examined = [], set(), 0
            for index in range(n_avail):
                examined += 1
                lk = self._linkage(sent, index)
                if lk is None:
                    continue
                key = lk.edge_set()
                if key in seen:
                    continue
                seen.add(key)
                kept.append(lk)
                if len(kept) >= self.max_parses:
                    break
            return LGParse(tuple(kept), found, examined,
                           int(lib.sentence_null_count(sent)), timed_out)
        finally:
            lib.sentence_delete(sent)
