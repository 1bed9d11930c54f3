"""Command line of kernelrank.ppi: protein–protein interaction extraction with the all-paths
graph kernel (Airola et al. 2008, Paper V).

  python -m ppi cv --corpus AIMed            10-fold document-level CV (Table 1)
  python -m ppi cross-corpus                 train on one corpus, test on the others (Tables 2–5)
  python -m ppi learning-curve               AUC against training size (Figure 3)
  python -m ppi benchmark                    all of the above on the five corpora
  python -m ppi ablation                     each view / parse alone, combinations, Paper V
  python -m ppi train --corpus LLL --model M save a model (JSON + npz, no pickle)
  python -m ppi train --relations-from TRAIN.pubtator --model M
                                             learn from document-level relations (BioRED,
                                             your curators' PubTator / BioC files)
  python -m ppi predict --input F --model M  score the candidate pairs of a corpus file
  python -m ppi extract --model M --input F --format pubtator --output OUT.jsonl
                                             score every candidate pair of raw text
  python -m ppi aggregate --input OUT.jsonl --output DOCS.jsonl
                                             per document: interacting gene-id pairs + evidence
  python -m ppi network --input DOCS.jsonl --output-dir NET
                                             corpus-level network (TSV, GraphML, PNG, report)
  python -m ppi evaluate-documents --input DOCS.jsonl --gold GOLD.bioc.xml
                                             document-level P/R/F/AUC vs BioC gold relations
                                             (--measure biored: BioRED's pair / type /
                                             novelty levels)
  python -m ppi mentions --input biored --output lexicon.txt
                                             gene-name lexicon (with NCBI Gene ids) for text
                                             without annotations (extract --lexicon)

Corpora are read from <data-dir>/ppi/<NAME>-learning-format.xml.gz (--data-dir, else
$KERNELRANK_DATA). Evaluations write results.json + results.md (embedding its PNG plots)
to --output-dir and end with a summary: files written, F / AUC, time, peak memory.
"""

import argparse
import sys

from corpora.text_input import FORMATS
from kernelrank.cli import (Summary, add_common, add_jobs, add_output_dir, add_threads,
                            run_subcommand, thread_limit)
from ppi.names import CORPORA, DEFAULT_SPACY_MODEL, MAX_TOP_EDGES, TRAIN_DEFAULT_SYSTEM
from ppi.systems.options import add_system_options


def _experiment(sub, name, help, jobs=True):
    p = sub.add_parser(name, help=help)
    add_common(p, data_dir="the PPI corpora (ppi/<NAME>-learning-format.xml.gz)",
               output_dir=True, seed="fold assignment, basis vectors, learning-curve order",
               jobs=1 if jobs else False, threads=True)
    add_system_options(p, name)
    return p


def build_parser():
    parser = argparse.ArgumentParser(prog="ppi", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = _experiment(sub, "cv", "10-fold document-level cross-validation on one corpus")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--corpus", choices=CORPORA)
    g.add_argument("--relations-from", metavar="FILE",
                   help="a PubTator / BioC file with document-level relations, or biored / "
                        "biored-dev / bc6ppim (in the data directory): cross-validate the "
                        "documents system on it (whole documents per fold)")
    p.add_argument("--folds", type=int, default=10)
    p = _experiment(sub, "cross-corpus", "train on each corpus, test on the others")
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p = _experiment(sub, "learning-curve", "AUC against training-set size")
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p.add_argument("--points", type=int, default=8)
    p = _experiment(sub, "benchmark", "cv on all five corpora + cross-corpus + curves")
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p.add_argument("--no-curves", action="store_true", help="skip the learning curves")
    p = _experiment(sub, "ablation", "each view and parse alone, their combinations and "
                                     "Paper V's system: F / AUC ± sd over fold seeds")
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2],
                   help="fold seeds of the small corpora (default 0 1 2)")
    p.add_argument("--big-seeds", nargs="+", type=int, default=[0],
                   help="fold seeds of AIMed and BioInfer (default 0: each CV costs minutes)")
    p = _experiment(sub, "train", "train on a corpus and save the model", jobs=False)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--corpus", choices=CORPORA)
    g.add_argument("--input", help="a learning-format XML file (gz or plain)")
    g.add_argument("--relations-from", metavar="FILE",
                   help="a PubTator / BioC file whose relations are given per document "
                        "(PubTator relation lines PMID<TAB>type<TAB>id1<TAB>id2, BioC "
                        "relations), or biored / biored-dev / bc6ppim (in the data "
                        "directory): train the documents system on spaCy's parse — the "
                        "model `ppi extract` uses on raw text; scores every gene pair of "
                        "a document")
    p.add_argument("--model", required=True, help="model directory to write")

    p = sub.add_parser("predict", help="score candidate pairs with a saved model")
    p.add_argument("--input", required=True, help="a learning-format XML file (gz or plain)")
    p.add_argument("--model", required=True, help="model directory (from `ppi train`)")
    add_common(p, output_dir=True, seed=False, quiet=False, threads=True)

    p = sub.add_parser("extract", help="score every candidate protein pair of raw text "
                                       "(PubMed XML, PubTator, BioC XML/JSON, plain text, "
                                       "learning XML)",
                       description="Score every candidate protein pair of raw text with a "
                                   "saved model (see the module ppi.extraction.extract for the output "
                                   "format, chunking and resuming).")
    p.add_argument("--model", required=True, help="model directory (from `ppi train`)")
    p.add_argument("--input", required=True, help="input file (gz allowed) or, for --format "
                                                  "text, a directory of *.txt files")
    p.add_argument("--format", default=None, choices=FORMATS,
                   help="input format (default: from the file name — .pubtator, .txt or a "
                        "directory, .json/.jsonl = bioc-json — or an .xml file's root element)")
    p.add_argument("--output", required=True, help="OUT.jsonl or OUT.tsv")
    p.add_argument("--output-format", choices=("jsonl", "tsv"), default=None,
                   help="default: tsv if --output ends in .tsv, else jsonl")
    p.add_argument("--lexicon", default=None,
                   help="protein names, one per line, for input without mention annotations "
                        "(build one with `ppi mentions`)")
    p.add_argument("--mention-types", nargs="+", default=None, metavar="TYPE",
                   help="PubTator/BioC input: pair only the mentions of these types, e.g. "
                        "Gene (PubTator Central also annotates chemicals, diseases, species, "
                        "...); default: every annotated mention")
    p.add_argument("--spacy-model", default=None,
                   help="spaCy pipeline (installed name or folder) that parses the input; "
                        "default: the one the model was trained on (its parse; "
                        f"{DEFAULT_SPACY_MODEL} for models that read the corpus files' parses)")
    p.add_argument("--reparse", action="store_true",
                   help="--format learning-xml: parse the sentences with spaCy instead of "
                        "scoring the parses the file carries (those the model reads)")
    p.add_argument("--no-collapse", action="store_true",
                   help="keep spaCy's dependencies as they are (no collapsed-Stanford rewriting; "
                        "by default raw text is converted as the model's training data was)")
    p.add_argument("--chunk-size", type=int, default=100, help="documents per chunk")
    p.add_argument("--one-document", action="store_true",
                   help="--format text: the whole file is one document")
    p.add_argument("--skip-bad", action="store_true",
                   help="skip malformed records, and leave out PubTator/BioC mentions that "
                        "cannot be placed near their offsets (both counted in the summary), "
                        "instead of stopping")
    p.add_argument("--scheduler", default=None,
                   help="address of an existing Dask scheduler (tcp://host:port); default: "
                        "a local cluster of --jobs processes")
    p.add_argument("--scheduler-timeout", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for --scheduler to answer (default 10)")
    p.add_argument("--overwrite", action="store_true",
                   help="discard an existing output / unfinished run instead of resuming")
    add_output_dir(p, default="", help="folder of the run's summary report OUT.summary.json "
                                       "+ .md (default: the folder of --output)")
    add_common(p, seed=False)
    add_jobs(p, default=None, help="local Dask worker processes (default: the CPU count; "
                                   "0 = no Dask, in this process)")
    add_threads(p, default=1)
    p.set_defaults(resumes=True)        # Ctrl-C and disk full say how to resume

    p = sub.add_parser("aggregate", help="document-level gene-id pairs (max over mention "
                                         "pairs) with evidence sentences, from `ppi extract` "
                                         "output",
                       description="Per document, the unordered gene-id pairs of the "
                                   "extract output, scored by the maximum of their mention "
                                   "pairs' scores (see the module ppi.aggregation.aggregate for why max "
                                   "and not noisy-or), with their evidence sentences.")
    p.add_argument("--input", required=True, help="output of `ppi extract` (JSONL or TSV)")
    p.add_argument("--output", required=True, help="DOCS.jsonl or DOCS.tsv")
    p.add_argument("--output-format", choices=("jsonl", "tsv"), default=None,
                   help="default: tsv if --output ends in .tsv, else jsonl")
    p.add_argument("--evidence", type=int, default=3,
                   help="evidence sentences kept per gene pair, best first (default 3)")
    p.add_argument("--positive-only", action="store_true",
                   help="write only the pairs predicted to interact (default: every "
                        "co-mentioned pair with its score)")
    p.add_argument("--self-pairs", action="store_true",
                   help="keep pairs of a gene with itself (from two mentions of one gene in a "
                        "sentence; left out by default, see ppi.aggregation.aggregate)")
    add_output_dir(p, default="", help="folder of the report OUT.summary.json + .md + "
                                       "scores PNG (default: the folder of --output)")
    add_common(p, seed=False)

    p = sub.add_parser("network", help="the interaction network over all documents "
                                       "(TSV, GraphML, PNG, report) from `ppi aggregate` "
                                       "output")
    p.add_argument("--input", required=True, help="output of `ppi aggregate` (JSONL or TSV)")
    p.add_argument("--all-pairs", action="store_true",
                   help="an edge for every co-mentioned pair (co-occurrence network), not "
                        "only the pairs predicted to interact")
    p.add_argument("--top-edges", type=int, default=100,
                   help="at most this many edges in network.png: the largest connected "
                        "components, largest first, the largest cut to its strongest edges "
                        f"if it alone is larger (default 100, at most {MAX_TOP_EDGES}; "
                        "network.tsv and network.graphml hold every edge)")
    add_common(p, output_dir=True, seed=False)

    p = sub.add_parser("evaluate-documents",
                       help="precision, recall, F, AUC of `ppi aggregate` output against the "
                            "gold relations of a BioC or PubTator file, with the co-occurrence "
                            "baseline")
    p.add_argument("--input", required=True,
                   help="output of `ppi aggregate` (every co-mentioned pair: not "
                        "--positive-only)")
    p.add_argument("--gold", required=True, help="BioC XML / JSON (infons Gene1, Gene2) or "
                                                 "PubTator file with document-level "
                                                 "relations, or biored-dev / bc6ppim (in "
                                                 "the data directory)")
    p.add_argument("--gold-format", choices=("bioc-xml", "bioc-json", "pubtator"),
                   default=None, help="default: pubtator for a name with .pubtator or "
                                      "'pubtator', bioc-json for .json/.jsonl, else bioc-xml")
    p.add_argument("--entity-types", nargs="+", default=None, metavar="TYPE",
                   help="mention types whose concepts make the gold file's candidate pairs "
                        "(default: the model's, as recorded in the summaries `ppi extract` "
                        "and `ppi aggregate` write beside their outputs; else Gene "
                        "GeneOrGeneProduct)")
    p.add_argument("--relation-types", nargs="+", default=None, metavar="TYPE",
                   help="gold relation types that count, ignoring case (default: the "
                        "model's, e.g. Bind for a model trained with --relation-types Bind, "
                        "as recorded beside the input; else any type)")
    p.add_argument("--model", default=None, metavar="DIR",
                   help="the saved model that made the input: its entity and relation types "
                        "are measured (instead of those the summaries beside the input "
                        "record, which are not there when `ppi extract` or `ppi aggregate` "
                        "wrote them elsewhere with --output-dir); a mismatch is reported, "
                        "and so is a gold file the model learned from (in-sample)")
    p.add_argument("--skip-bad", action="store_true",
                   help="leave out (and count) predicted documents the gold file does not "
                        "have, and gold relations without two genes, instead of stopping")
    p.add_argument("--note", default=None,
                   help="a sentence for the report, e.g. which model made the predictions")
    p.add_argument("--measure", choices=("genes", "biored"), default=None,
                   help="genes (the default for a gene model's pairs): P/R/F/AUC of the "
                        "gene pairs (or of --entity-types), over the gold "
                        "candidates and the predicted pairs, with the co-occurrence "
                        "baseline; biored: BioRED's micro P/R/F at the levels entity pair, "
                        "+ relation type, + relation type + novelty (and pair + novelty), "
                        "over every gold relation, per entity-pair type too (see "
                        "ppi.aggregation.biored_measure; the default for a typed model's "
                        "pairs, unless --entity-types or --relation-types is given)")
    add_common(p, data_dir="the gold files named biored-dev, bc6ppim", output_dir=True,
               seed=False)

    p = sub.add_parser("mentions", help="build a protein-name lexicon for `ppi extract "
                                        "--lexicon` from annotated files: names (learning-"
                                        "format corpora), or names with their concept ids "
                                        "(PubTator / BioC)")
    p.add_argument("--corpora", nargs="*", choices=CORPORA, default=[],
                   help="benchmark corpora (<data-dir>/ppi/<NAME>-learning-format.xml.gz)")
    p.add_argument("--input", nargs="*", default=[],
                   help="other annotated files: learning-format XML (names), PubTator or BioC "
                        "(names with the concept ids their mentions carry, e.g. NCBI Gene "
                        "ids; each name takes the id most of its documents give it), or "
                        "biored / biored-dev / bc6ppim in the data directory")
    p.add_argument("--entity-types", nargs="+", default=None, metavar="TYPE",
                   help="PubTator / BioC mention types whose names are taken (default: "
                        "Gene GeneOrGeneProduct)")
    p.add_argument("--skip-bad", action="store_true",
                   help="skip malformed PubTator / BioC records (counted) instead of stopping")
    p.add_argument("--min-length", type=int, default=2,
                   help="shortest name kept (after case and hyphen normalization)")
    p.add_argument("--output", required=True, help="lexicon file to write")
    add_common(p, data_dir="the PPI corpora and the relation sets", seed=False, quiet=False)

    p = sub.add_parser("tune-parser",
                       help="fine-tune spaCy's tagger and parser on the CRAFT gold trees: a "
                            "biomedical parser to train and extract with (--spacy-model "
                            "OUTPUT_DIR/pipeline)")
    p.add_argument("--craft-dir", default=None,
                   help="CRAFT CoNLL-U folder (default: <data dir>/craft/conllu; `python -m "
                        "corpora fetch craft`)")
    p.add_argument("--base-model", default=DEFAULT_SPACY_MODEL, metavar="NAME_OR_DIR",
                   help=f"spaCy pipeline to start from (default {DEFAULT_SPACY_MODEL})")
    p.add_argument("--max-steps", type=int, default=2000,
                   help="update steps (default 2000)")
    p.add_argument("--eval-every", type=int, default=500,
                   help="steps between evaluations on the held-out articles; the best "
                        "checkpoint is kept (default 500)")
    add_common(p, data_dir="CRAFT (craft/conllu)", output_dir=True,
               seed="spaCy's training seed (batches, dropout)")
    return parser


# ----------------------------------------------------------------------------- handlers
def _settings(args, system=None):
    """The :class:`ppi.systems.Settings` of a mention-level command line."""
    from ppi.systems.base import System

    return System.from_options(args, system)


def refuse_unread_options(args, default_system=None):
    """Refuse, before any work, an option of ``ppi train`` / ``ppi cv`` that the chosen
    system does not read (:func:`ppi.systems.options.unread_options` of the registered
    class' declared ``options``): a mention-level system's option with ``--relations-from``
    (``--gamma``, ``--system``, …), a documents-system option without it
    (``--relation-types``, …), or ``ppi cv --relations-from --jobs`` (the documents CV
    runs in one process) — instead of training silently without it.  Returns the chosen
    system's class.  Raises :class:`~kernelrank.errors.InvalidParameterError` naming every
    such option."""
    from kernelrank.errors import InvalidParameterError
    from ppi.systems.options import system_class, unread_options

    cls = system_class(args, default_system)
    given = unread_options(args, cls)
    if args.command == "cv" and args.jobs != 1 and "jobs" not in cls.options:
        given.append("--jobs")          # `ppi train` accepts it everywhere, without effect
    if not given:
        return cls
    which = "it" if len(given) == 1 else "them"
    if cls.chosen_by != "--system":
        raise InvalidParameterError(
            f"{', '.join(given)}: not read by the {cls.name} system that {cls.chosen_by} "
            f"trains (see `ppi {args.command} --help`, group '{cls.name} system (with "
            f"{cls.chosen_by})'); leave {which} out, or train a mention-level system with "
            "--corpus / --input")
    raise InvalidParameterError(
        f"{', '.join(given)}: read only with --relations-from (the documents system, "
        "trained on document-level relations); --corpus / --input train on the corpus' own "
        f"mention-level interactions — leave {which} out")


def _cv(args):
    from ppi.experiments.report import cv_line
    from ppi.experiments.runs import run_cv

    system = refuse_unread_options(args)
    if args.relations_from:
        from ppi.documents.runs import cv_documents
        from ppi.names import relations_path

        r, written = cv_documents(args.output_dir, system.from_options(args),
                                  relations_path(args.data_dir, args.relations_from),
                                  folds=args.folds, format=args.relations_format,
                                  data_dir=args.data_dir, skip_bad=args.skip_bad)
        m = r["mean"]
        return Summary(written, [f"{r['data']['candidates']} candidate pairs: P "
                                 f"{100 * m['precision']:.1f} R {100 * m['recall']:.1f} F "
                                 f"{100 * m['f1']:.1f} AUC {100 * m['auc']:.1f} (fold means)"])

    r, written = run_cv(args.corpus, args.output_dir, _settings(args), data_dir=args.data_dir,
                        folds=args.folds, leaky=args.leaky, sources=args.sources)
    return Summary(written, [cv_line(r)])


def _cross(args):
    from ppi.experiments.report import cross_line
    from ppi.experiments.runs import run_cross_corpus

    res, written = run_cross_corpus(args.corpora, args.output_dir, _settings(args),
                                    data_dir=args.data_dir)
    return Summary(written, [cross_line(res)])


def _curves(args):
    from ppi.experiments.report import curve_line
    from ppi.experiments.runs import run_learning_curves

    res, written = run_learning_curves(args.corpora, args.output_dir, _settings(args),
                                       data_dir=args.data_dir, points=args.points)
    return Summary(written, [curve_line(c) for c in res["curves"]])


def _benchmark(args):
    from ppi.experiments.report import cross_line, curve_line, cv_line
    from ppi.experiments.runs import run_benchmark

    res, written = run_benchmark(args.corpora, args.output_dir, _settings(args),
                                 data_dir=args.data_dir, curves=not args.no_curves)
    curves = res["learning_curves"]["curves"] if res["learning_curves"] else []
    return Summary(written, [f"cv {cv_line(r)}" for r in res["cv"]]
                   + [cross_line(res["cross_corpus"])] + [curve_line(c) for c in curves])


def _ablation(args):
    from ppi.experiments.ablation import run_ablation

    res, written = run_ablation(args.corpora, args.output_dir, _settings(args),
                                seeds=args.seeds, big_seeds=args.big_seeds,
                                data_dir=args.data_dir)
    best = max((r for r in res["rows"] if r["system"] != "paper-v"),
               key=lambda r: r["auc_mean"])
    return Summary(written, [f"{len(res['rows'])} rows; best AUC {100 * best['auc_mean']:.1f} "
                             f"({best['corpus']}, {'+'.join(best['views'])})"])


def _train(args):
    from ppi.systems.training import train

    system = refuse_unread_options(args, TRAIN_DEFAULT_SYSTEM)
    if args.relations_from:
        from ppi.documents.runs import train_documents
        from ppi.names import relations_path

        res, written = train_documents(args.model, args.output_dir, system.from_options(args),
                                       relations_path(args.data_dir, args.relations_from),
                                       format=args.relations_format,
                                       data_dir=args.data_dir, skip_bad=args.skip_bad)
        sel = res["selection"]
        inner_auc = sel.get("stage_auc", sel["instance_auc"])
        line = (f"λ = {sel['alpha']:g}" + (f", β = {sel['beta']:g}" if sel.get("beta")
                                            is not None else "")
                + f"; leave-one-document-out AUC {100 * inner_auc:.1f}"
                + (f", F {100 * sel['stage_f1']:.1f}" if "stage_f1" in sel else "")
                + f"; threshold {res['threshold']:.4g}")
        return Summary(written, [line])

    res, written = train(args.model, args.output_dir, _settings(args, TRAIN_DEFAULT_SYSTEM),
                         corpus=args.corpus,
                         input=args.input, data_dir=args.data_dir, sources=args.sources,
                         select_on=args.select_on)
    dev = res.get("development")
    return Summary(written, [f"λ = {res['alpha']:g}, threshold {res['threshold']:.4g}, "
                             f"leave-one-document-out F "
                             f"{100 * res['inner_loo_document_f1']:.1f}"
                             + (f", AUC {100 * res['inner_loo_document_auc']:.1f}"
                                if "inner_loo_document_auc" in res else "")
                             + (f"; development AUC {100 * dev['auc']:.1f} ({dev['file']}"
                                + (", its development half" if "trained_on" in dev else "")
                                + ")"
                                if dev else "")])


def _predict(args):
    from ppi.systems.training import predict

    res, written = predict(args.input, args.model, args.output_dir)
    line = f"{res['n_predicted_positive']} of {res['n_pairs']} pairs predicted to interact"
    if "f1" in res:
        line += f"; F {100 * res['f1']:.1f} AUC {100 * res['auc']:.1f}"
    return Summary(written, [line])


def _extract(args):
    from ppi.extraction.extract import extract, write_summary_report

    s = extract(args.input, args.model, args.output, args.format, lexicon=args.lexicon,
                spacy_model=args.spacy_model, collapse=not args.no_collapse,
                chunk_size=args.chunk_size, output_format=args.output_format,
                skip_bad=args.skip_bad, one_document=args.one_document, workers=args.jobs,
                scheduler=args.scheduler, overwrite=args.overwrite, progress=not args.quiet,
                reparse=args.reparse, connect_timeout=args.scheduler_timeout,
                command=args.command_line, mention_types=args.mention_types)
    written = [args.output, *write_summary_report(s, args.output_dir)]
    lines = [f"{s['documents']} documents, {s['sentences']} sentences, {s['pairs']} candidate "
             f"mention pairs, {s['predicted_positive']} predicted interactions "
             f"({s['resumed_chunks']} of {s['chunks']} chunks resumed)"]
    if "candidate_pairs" in s:
        lines.append(f"{s['candidate_pairs']} candidate "
                     f"{'concept' if s.get('typed') else 'gene'} pairs (documents model), "
                     f"{s['predicted_candidate_pairs']} predicted related")
        if not s["candidate_pairs"] and s["pairs"] and args.lexicon:
            lines.append("no document had two tagged names of distinct concept ids, so no "
                         "gene pair was formed; a lexicon without ids gives none: build one "
                         "with ids (`ppi mentions --input annotated.pubtator --output L`, "
                         "name<TAB>id lines)")
    return Summary(written, lines)


def _aggregate(args):
    from ppi.aggregation.aggregate import aggregate, write_aggregate_report

    s = aggregate(args.input, args.output, output_format=args.output_format,
                  evidence=args.evidence, self_pairs=args.self_pairs,
                  positive_only=args.positive_only, command=args.command_line)
    written = [args.output, *write_aggregate_report(s, args.output_dir)]
    return Summary(written, [f"{s['documents_with_pairs']} documents, {s['gene_pairs']} gene "
                             f"pairs, {s['interacting_gene_pairs']} predicted to interact "
                             f"({s['mention_pairs_without_ids']} of {s['mention_pairs']} "
                             "mention pairs without concept ids and "
                             f"{s['self_pairs_left_out']} of one gene left out)"])


def _network(args):
    from ppi.aggregation.network import run_network

    r, written = run_network(args.input, args.output_dir, all_pairs=args.all_pairs,
                             top_edges=args.top_edges, seed=args.seed)
    nodes, edges = ("concepts", "relations") if "node_types" in r else ("genes",
                                                                       "interactions")
    lines = [(f"{r['nodes']} {nodes}, {r['edges']} {edges}, "
              f"{r['components']} components (largest {r['largest_component']})")]
    if not r["edges"]:
        lines.append(f"no interaction in the {r['document_pairs_read']} document pairs read: "
                     "the outputs hold an empty network (the report says why)")
    return Summary(written, lines)


def _evaluate_biored(args):
    from kernelrank.errors import InvalidParameterError
    from ppi.aggregation.biored_measure import run_biored_evaluation
    from ppi.names import relations_path

    given = [o for o, v in (("--entity-types", args.entity_types),
                            ("--relation-types", args.relation_types)) if v is not None]
    if given:
        raise InvalidParameterError(f"{', '.join(given)}: not read by --measure biored, which "
                                    "measures every gold relation (its per_pair_type results "
                                    "give each entity-pair type); leave "
                                    + ("it" if len(given) == 1 else "them") + " out")
    r, written = run_biored_evaluation(args.input, relations_path(args.data_dir, args.gold),
                                       args.output_dir, gold_format=args.gold_format,
                                       skip_bad=args.skip_bad, model_note=args.note,
                                       model=args.model)

    def prf(level):
        m = r[level]
        return " ".join(f"{k} {'–' if m[x] is None else f'{100 * m[x]:.1f}'}"
                        for k, x in (("P", "precision"), ("R", "recall"), ("F", "f1")))
    return Summary(written, [f"{r['gold_pairs']} gold relations, {r['predicted_relations']} "
                             "predicted"] + [f"{level}: {prf(level)}" for level in
                                             ("pair", "type", "novelty", "pair_novelty")])


def _typed_input(path):
    """Whether the first record of the aggregate output ``path`` is a typed model's (it has
    a ``pair_type``)."""
    from ppi.aggregation.aggregate import read_document_pairs

    for _, x in read_document_pairs(path):
        return bool(x.get("pair_type"))
    return False


def _evaluate_documents(args):
    measure = args.measure
    if measure is None:
        plain = args.entity_types is None and args.relation_types is None
        measure = "biored" if plain and _typed_input(args.input) else "genes"
    if measure == "biored":
        return _evaluate_biored(args)
    from ppi.aggregation.evaluation import run_evaluate_documents

    from ppi.names import relations_path

    r, written = run_evaluate_documents(args.input, relations_path(args.data_dir, args.gold),
                                        args.output_dir,
                                        gold_format=args.gold_format, skip_bad=args.skip_bad,
                                        model_note=args.note, entity_types=args.entity_types,
                                        relation_types=args.relation_types,
                                        model=args.model)
    m, c = r["model"], r["cooccurrence"]
    k = r["candidates"]

    def auc(x):                 # None when the pairs are of one class only
        return "" if x.get("auc") is None else f" AUC {100 * x['auc']:.1f}"
    return Summary(written, ([] if k is None else [
        f"gold candidates ({k['n']}, {k['related']} related): P "
        f"{100 * k['model']['precision']:.1f} R {100 * k['model']['recall']:.1f} F "
        f"{100 * k['model']['f1']:.1f}{auc(k['model'])}; sentence "
        f"co-occurrence F {100 * k['cooccurrence']['f1']:.1f}"]) + [
        f"predicted pairs: model P {100 * m['precision']:.1f} R {100 * m['recall']:.1f} "
        f"F {100 * m['f1']:.1f}{auc(m)}",
        f"co-occurrence: P {100 * c['precision']:.1f} R {100 * c['recall']:.1f} "
        f"F {100 * c['f1']:.1f}"])


def _mentions(args):
    from ppi.extraction.mentions import write_lexicon

    lexicon = write_lexicon(args.output, corpora=args.corpora, inputs=args.input,
                            data_dir=args.data_dir, min_length=args.min_length,
                            entity_types=args.entity_types, skip_bad=args.skip_bad)
    with_id = sum(i is not None for _, i in lexicon.entries)
    return Summary([args.output], [f"{len(lexicon.entries)} names, {with_id} with a concept "
                                   f"id ({lexicon.ambiguous} names given several ids by "
                                   "their documents: the most frequent kept)"])


def _tune_parser(args):
    from kernelrank.report import write_report
    from ppi.cli_checks import craft_dir
    from ppi.parsing.parser_tuning import tune_parser, tuning_markdown

    res = tune_parser(craft_dir(args), args.output_dir, base=args.base_model,
                      max_steps=args.max_steps, eval_every=args.eval_every, seed=args.seed,
                      progress=not args.quiet)
    written = write_report(args.output_dir, "results", res, tuning_markdown(res))
    b, a = res["before"], res["after"]
    return Summary([res["pipeline"], *written], [
        f"held-out CRAFT ({res['held_out']['sentences']} sentences): UAS {b['uas']:.1f} → "
        f"{a['uas']:.1f}, LAS {b['las']:.1f} → {a['las']:.1f}, tags {b['tag_acc']:.1f} → "
        f"{a['tag_acc']:.1f}",
        f"use it: --spacy-model {res['pipeline']}"])


COMMANDS = {"cv": _cv, "cross-corpus": _cross, "learning-curve": _curves,
            "benchmark": _benchmark, "ablation": _ablation, "train": _train, "predict": _predict,
            "extract": _extract, "aggregate": _aggregate, "network": _network,
            "evaluate-documents": _evaluate_documents,
            "mentions": _mentions, "tune-parser": _tune_parser}


def _run(args):
    with thread_limit(getattr(args, "threads", None), getattr(args, "jobs", 1)):
        return COMMANDS[args.command](args)


def main(argv=None):
    from ppi.cli_checks import CHECKS

    return run_subcommand(build_parser(), argv, _run, checks=CHECKS)


if __name__ == "__main__":
    sys.exit(main())
