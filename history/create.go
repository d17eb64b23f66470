package history

import "os"

// Create opens path for a new history, as os.Create does, except that a
// regular file already there is unlinked first rather than truncated.
// ext4 (auto_da_alloc) writes back a file truncated to zero and written
// again when it is closed, for fear of leaving it empty after a crash:
// closing a 2.8 GB history written over the last run's took 0.9 s more
// than closing a new one, all of it after the writers stopped. Freeing
// the old file's blocks takes time too (0.4 s for 2.8 GB), so the old
// file is held open while its name is removed, and closed, which frees
// them, in the background. Anything else at path (a device such as
// /dev/null, a named pipe), or a file that cannot be unlinked, is opened
// as os.Create opens it.
func Create(path string) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() {
		old, _ := os.Open(path) // nil when it cannot be read: freed at once
		removed := removeFile(path) == nil
		if old != nil {
			if removed {
				go old.Close()
			} else {
				old.Close()
			}
		}
	}
	return os.Create(path)
}

// removeFile is os.Remove; a test makes it fail, as it does where the
// directory is not writable (though not for root).
var removeFile = os.Remove
