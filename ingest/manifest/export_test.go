package manifest

import (
	"bytes"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CheckSchemaWhole holds data to the manifest schema in one validation of
// the whole value, as a validator following the schema would: the oracle
// of CheckSchema's value-by-value validation.
func CheckSchemaWhole(file string, data []byte) error {
	s, err := compiledSchemas()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	if err != nil {
		return err
	}
	if file == ManifestName {
		return s.root.Validate(v)
	}
	return s.entry.Validate(v)
}
