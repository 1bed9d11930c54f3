"""Relations learned from document-level annotations: the relation corpus of PubTator / BioC
documents and its candidates (:mod:`~ppi.documents.relations`), what becomes of each of its
relations (:mod:`~ppi.documents.relation_counts`), the mention-pair stage and
its fit (:mod:`~ppi.documents.system`), the document stage (:mod:`~ppi.documents.stage`),
and training and cross-validation end to end (:mod:`~ppi.documents.runs`).
"""
