package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api"
)

// communityLevel is shaped like a real capture of the game: seeds at the
// top level, an operations array, extra tile fields, layers as string keys,
// and no "kind".
const communityLevel = `{"widthNum":8,"heightNum":10,"levelKey":90029,"map_seed":[1,2,3,4],"map_seed_2":"77",
 "operations":[["click","1-0-0"]],"blockTypeData":{"1":2},
 "levelData":{"1":[{"id":"1-0-0","type":1,"rolNum":0,"rowNum":0,"layerNum":1,"moldType":1,"blockNode":null,"angle":0},
  {"id":"1-8-0","type":1,"rolNum":8,"rowNum":0,"layerNum":1,"moldType":1}],
  "2":[{"id":"2-4-0","type":1,"rolNum":4,"rowNum":0,"layerNum":2,"moldType":1,"visible":true}]}}`

// nativeLevel is communityLevel in the native format: same level hash.
const nativeLevel = `{"kind":"sheep","tiles":[{"id":"1-0-0","type":1,"x":0,"y":0,"layer":1},
 {"id":"1-8-0","type":1,"x":8,"y":0,"layer":1},{"id":"2-4-0","type":1,"x":4,"y":0,"layer":2}]}`

// TestCommunitySheepWithoutKind: a community sheep file without "kind" is
// accepted as it is in every form of POST /v1/jobs and as a batch line.
func TestCommunitySheepWithoutKind(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	code, body := request(t, "POST", f.url+"/v1/jobs", "", nativeLevel)
	var native struct {
		LevelHash string `json:"level_hash"`
	}
	if err := json.Unmarshal([]byte(body), &native); code != http.StatusAccepted || err != nil {
		t.Fatalf("native level: %d %s", code, body)
	}
	for name, req := range map[string]string{
		"bare":    communityLevel,
		"wrapper": `{"level":` + communityLevel + `,"priority":"bulk"}`,
	} {
		code, body := request(t, "POST", f.url+"/v1/jobs", "", req)
		var job struct {
			Kind      string `json:"kind"`
			LevelHash string `json:"level_hash"`
		}
		if err := json.Unmarshal([]byte(body), &job); code != http.StatusAccepted || err != nil {
			t.Fatalf("%s: %d %s", name, code, body)
		}
		if job.Kind != "sheep" || job.LevelHash != native.LevelHash {
			t.Fatalf("%s: kind %q hash %s, native hash %s", name, job.Kind, job.LevelHash, native.LevelHash)
		}
	}
	line := strings.ReplaceAll(communityLevel, "\n", "")
	req, _ := http.NewRequest("POST", f.url+"/v1/batches", strings.NewReader(line+"\n"+nativeLevel2Line()+"\n"))
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("batch of community lines: %d", resp.StatusCode)
	}
	// Without "kind" and without levelData the kind is still missing.
	code, body = request(t, "POST", f.url+"/v1/jobs", "", `{"tiles":[]}`)
	if code != http.StatusBadRequest || !strings.Contains(body, `"field"`) {
		t.Fatalf("kindless non-community object: %d %s", code, body)
	}
	// A community file's used fields stay strict.
	bad := strings.Replace(communityLevel, `"rolNum":8`, `"rolNum":"8"`, 1)
	code, body = request(t, "POST", f.url+"/v1/jobs", "", bad)
	if code != http.StatusBadRequest || !strings.Contains(body, "rolNum") {
		t.Fatalf("string rolNum: %d %s", code, body)
	}
}

func nativeLevel2Line() string {
	return strings.ReplaceAll(strings.Replace(nativeLevel, `"type":1,"x":0`, `"type":2,"x":0`, 1), "\n", "")
}
