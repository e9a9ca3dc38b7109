"""Optional LangChain and LlamaIndex integrations (max-pool retrieval by evidence unit).

Nothing is imported here, so ``import docling_evidence`` stays light. Import what you use:

- ``docling_evidence.integrations.maxpool``: framework-free max-pooling of scored hits by ``unit_id``;
- ``docling_evidence.integrations.packing``: framework-free packing of the pooled units (``budget=`` of the retrievers);
- ``docling_evidence.integrations.langchain``: ``EvidenceMetaExtractor``, ``flatten_evidence_metadata``,
  ``evidence_ids`` and ``MaxPoolRetriever`` (extra ``langchain``);
- ``docling_evidence.integrations.llamaindex``: ``EvidenceNodeTransform``, ``contextualize_nodes``,
  ``MaxPoolPostprocessor`` and ``MaxPoolRetriever`` (extra ``llamaindex``).
"""
