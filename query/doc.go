// Package query answers the reads of the served-context plane: the
// documentation texts of read_documentation and read_context, paged by the
// contract's chunk rules, and word search with the contract's 3/2/1
// scoring over candidates from the version's n-gram index.
//
// # The store seam
//
// The reader reads a version through interfaces this package defines, in
// reader.go, and through nothing else of a storage layout:
//
//   - Versions hands out the served version, or ErrNoVersion;
//   - Version names it, holds its trees, memoises what the reader derives
//     of it, and gives the candidates of search: the pages whose n-grams
//     in a Field (all, title, headings) include an n-gram, as a bit set
//     over page ordinals;
//   - Tree gives a tree's title and manifest (its pages in order, the
//     ordinal of the first, a route's position), each page's headings and
//     the body search matches words against, and its texts;
//   - Text is one stored text: its places (textmap.Layout), its stamp
//     and its bytes.
//
// store.go is the one file that imports package store: FromStore,
// StoreVersion and StoreWarm adapt the bbolt-and-bleve layout to these
// interfaces with single-pointer adapters, which allocate nothing when
// handed out. A second storage layout implements the interfaces and is
// passed to NewReader; nothing else here changes. Search reads the
// layout once per n-gram of a query (Candidates) and once per candidate
// it refines (SearchBody); titles and headings are read once per version
// (Memo, which Warm fills before the version is served).
package query
