package tzctx

import "context"

type bodyBoundKey struct{}

// WithBodyBound returns ctx saying that the request's body is bounded to
// limit bytes already: the HTTP chain a server puts every route behind
// bounds it once, and a front end that reads a context carrying it adds
// no bound of its own, so one bound applies to a request, once.
func WithBodyBound(ctx context.Context, limit int64) context.Context {
	return context.WithValue(ctx, bodyBoundKey{}, limit)
}

// BodyBound returns the bound WithBodyBound gave the request's body, in
// bytes; ok is false where no chain bounded it, and the front end
// bounds the body itself.
func BodyBound(ctx context.Context) (limit int64, ok bool) {
	limit, ok = ctx.Value(bodyBoundKey{}).(int64)
	return limit, ok
}
