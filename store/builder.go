package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/blevesearch/bleve/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/turnzerocloud/tzctx"
)

var (
	bucketMeta     = []byte("meta")
	keyMeta        = []byte("meta")
	keyManifest    = []byte("manifest")
	bucketText     = []byte("text")
	bucketLayout   = []byte("layout")
	bucketLower    = []byte("lower")
	bucketHeadings = []byte("headings")
)

// flushBytes bounds what one bbolt write transaction holds in memory.
const flushBytes = 64 << 20

// Builder writes one new version in a staging folder. Nothing it writes is
// visible until Commit renames the folder into place; Abort, or a crash,
// leaves only a staging folder that the next builder removes.
type Builder struct {
	s       *Store
	dir     string
	lock    *os.File
	db      *bolt.DB
	tx      *bolt.Tx
	pending int
	index   bleve.Builder
	indexed int
	done    bool
}

// NewBuilder starts a version in a fresh staging folder, first removing
// what interrupted builds left behind.
func (s *Store) NewBuilder() (*Builder, error) {
	s.cleanStaging()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	dir := filepath.Join(s.dir, stagingDir, "build-"+hex.EncodeToString(rnd[:]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create staging folder: %w", err)
	}
	b := &Builder{s: s, dir: dir}
	var err error
	if b.lock, err = os.Create(filepath.Join(dir, lockFile)); err == nil {
		err = syscall.Flock(int(b.lock.Fd()), syscall.LOCK_EX)
	}
	if err == nil {
		b.db, err = bolt.Open(filepath.Join(dir, dbFile), 0o644, &bolt.Options{NoSync: true, NoFreelistSync: true})
	}
	if err == nil {
		// The builder's work files go in the staging folder too, so an
		// interrupted build leaves nothing outside the data directory.
		b.index, err = bleve.NewBuilder(filepath.Join(dir, indexDir), gramMapping(), map[string]any{"batchSize": 1000, "buildPathPrefix": dir})
	}
	if err != nil {
		b.Abort()
		return nil, fmt.Errorf("create staging version: %w", err)
	}
	return b, nil
}

func (b *Builder) begin() error {
	if b.tx == nil {
		tx, err := b.db.Begin(true)
		if err != nil {
			return err
		}
		b.tx = tx
	}
	return nil
}

func (b *Builder) bucket(tree string, sub []byte) (*bolt.Bucket, error) {
	if err := b.begin(); err != nil {
		return nil, err
	}
	tb, err := b.tx.CreateBucketIfNotExists([]byte(tree))
	if err != nil || sub == nil {
		return tb, err
	}
	return tb.CreateBucketIfNotExists(sub)
}

func (b *Builder) put(tree string, sub, key, val []byte) error {
	bk, err := b.bucket(tree, sub)
	if err != nil {
		return err
	}
	if err := bk.Put(key, val); err != nil {
		return err
	}
	b.pending += len(val)
	if b.pending >= flushBytes {
		b.pending = 0
		tx := b.tx
		b.tx = nil
		return tx.Commit()
	}
	return nil
}

// treeManifest is what a tree's manifest record holds.
type treeManifest struct {
	Title string       `json:"title"`
	Pages []tzctx.Page `json:"pages"`
}

// PutTree records a tree's title and its pages in manifest order.
func (b *Builder) PutTree(tree, title string, pages []tzctx.Page) error {
	data, err := json.Marshal(treeManifest{Title: title, Pages: pages})
	if err != nil {
		return err
	}
	return b.put(tree, nil, keyManifest, data)
}

// PutText stores one text of a tree under key ("index", "full", "outline"
// or a page route) with its layout and stamp.
func (b *Builder) PutText(tree, key, text string, l Layout) error {
	enc, err := encodeLayout(text, l)
	if err != nil {
		return fmt.Errorf("text %s of tree %s: %w", key, tree, err)
	}
	if err := b.put(tree, bucketText, []byte(key), []byte(text)); err != nil {
		return err
	}
	return b.put(tree, bucketLayout, []byte(key), enc)
}

// PutPageSearch stores what search needs of a page beyond its text: its
// lower-cased copy and its headings.
func (b *Builder) PutPageSearch(tree, route, lower string, headings []tzctx.Heading) error {
	if err := b.put(tree, bucketLower, []byte(route), []byte(lower)); err != nil {
		return err
	}
	hs, err := json.Marshal(headings)
	if err != nil {
		return err
	}
	return b.put(tree, bucketHeadings, []byte(route), hs)
}

// PageGrams are the distinct n-grams of one page, each list joined by
// single spaces: of the whole page (title and copy), of its title alone
// and of its headings alone.
type PageGrams struct {
	All, Title, Headings string
}

// IndexPage adds page number ord of the version (its place across all
// trees in tree and manifest order) to the n-gram index.
func (b *Builder) IndexPage(ord int, g PageGrams) error {
	b.indexed++
	return b.index.Index(strconv.Itoa(ord), map[string]any{FieldAll: g.All, FieldTitle: g.Title, FieldHeadings: g.Headings})
}

// Commit finishes the version under meta.Name and renames it into place.
// It refuses a name that is taken. It checks ctx between its phases and
// last just before the rename, so a cancelled ctx leaves no version. On
// every failure it aborts: the staging folder, its lock and the open files
// go, and nothing becomes visible.
func (b *Builder) Commit(ctx context.Context, meta Meta) error {
	if b.done {
		return errors.New("builder already finished")
	}
	if err := b.commit(ctx, meta); err != nil {
		b.Abort()
		return err
	}
	b.done = true
	b.lock.Close()
	return nil
}

func (b *Builder) commit(ctx context.Context, meta Meta) (err error) {
	defer recovered(&err)
	if err := ValidName(meta.Name); err != nil {
		return err
	}
	if b.indexed == 0 {
		return errors.New("a version needs at least one page")
	}
	final := b.s.versionDir(meta.Name)
	if _, err := os.Stat(final); err == nil {
		return fmt.Errorf("version %q exists already; choose another --version name or delete it", meta.Name)
	}
	meta.Format = FormatVersion
	meta.Files = nil
	err = func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		mb, err := json.Marshal(meta)
		if err != nil {
			return err
		}
		if err := b.begin(); err != nil {
			return err
		}
		mk, err := b.tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		if err := mk.Put(keyMeta, mb); err != nil {
			return err
		}
		tx := b.tx
		b.tx = nil
		if err := tx.Commit(); err != nil {
			return err
		}
		if err := b.db.Sync(); err != nil {
			return err
		}
		if err := b.db.Close(); err != nil {
			return err
		}
		b.db = nil
		if err := b.index.Close(); err != nil {
			return fmt.Errorf("build search index: %w", err)
		}
		b.index = nil
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := syncTree(b.dir); err != nil {
			return err
		}
		// The checksums go in meta.json, written last: a folder with a
		// meta.json is complete.
		if meta.Files, err = checksums(ctx, b.dir); err != nil {
			return err
		}
		if mb, err = json.MarshalIndent(meta, "", "  "); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(b.dir, metaFile), mb); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		// The lock is held through the rename, so no other builder's
		// clean-up can take the folder for a leftover.
		if err := os.Rename(b.dir, final); err != nil {
			return err
		}
		syncDir(filepath.Dir(final))
		os.Remove(filepath.Join(final, lockFile))
		return nil
	}()
	if err != nil {
		return fmt.Errorf("commit version %q: %w", meta.Name, err)
	}
	return nil
}

// Abort discards the staging folder.
func (b *Builder) Abort() {
	if b.done {
		return
	}
	b.done = true
	if b.tx != nil {
		_ = b.tx.Rollback()
	}
	if b.db != nil {
		b.db.Close()
		b.db = nil
	}
	// The bleve builder is not closed: closing it would build the whole
	// index first. It holds no open file between batches; its work files
	// live in the staging folder and go with it, and dropping it frees its
	// pending batch.
	b.index = nil
	os.RemoveAll(b.dir)
	if b.lock != nil {
		b.lock.Close()
	}
}

// syncTree fsyncs every file below dir, so a rename publishes only data
// that is on disk.
func syncTree(dir string) error {
	return filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}
