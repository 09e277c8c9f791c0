"""Pure RAG logic: templates, chunking, access rule, scope parsing, fusion, prompts. No I/O."""
