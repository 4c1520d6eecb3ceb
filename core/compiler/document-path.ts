// A place in a workflow document: map keys and list indexes from the root. Its own module, below both the source
// reader and the plain-scalar repair, so neither imports the other for it.

/** One step of a path into a document: a map key or a list index. */
export type PathSegment = string | number;
