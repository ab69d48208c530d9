// Mermaid as the ES module sphinxcontrib-mermaid imports (mermaid_use_local in conf.py): the
// one-file build (@mermaid-js/tiny, loaded first as a classic script) sets globalThis.mermaid.
export default globalThis.mermaid;
