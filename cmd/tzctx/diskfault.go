package main

import (
	"errors"
	"fmt"
	"syscall"
)

// diskFault adds to err, where a full or read-only file system under the
// data directory caused it, what became of the command's work (left, as
// "nothing was stored") and what the user can do about it; any other
// error is returned as it is.
func diskFault(dataDir, left string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w; the file system of the data directory %s is full: %s; free space there "+
			"(tzctx delete removes versions no longer served) or give --data a folder on a larger disk, then run the command again", err, dataDir, left)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w; the data directory %s is on a read-only file system: %s; tzctx serve can serve it "+
			"as it is, but store versions where it is writable (remount it read-write, or ingest elsewhere and tzctx import or "+
			"publish the version), then run the command again", err, dataDir, left)
	}
	return err
}
