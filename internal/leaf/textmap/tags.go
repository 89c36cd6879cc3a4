package textmap

// DropTags returns a heading's text without its inline HTML and JSX tags
// (outside code spans, not escaped), their content kept: the text a
// renderer's slugger reads.
func DropTags(text string) string { return dropTags(text) }
