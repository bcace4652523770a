package provider

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/malipo/terraform-provider-malipo/internal/sandbox"
	"github.com/malipo/terraform-provider-malipo/openapi/api"
	"github.com/malipo/terraform-provider-malipo/openapi/client"
	"github.com/malipo/terraform-provider-malipo/openapi/webhook"
)

// The write-only secret (secret_wo) is sent and never stored. The acceptance test below gives real
// Terraform (1.11 or later) a secret through an ephemeral input variable, from the environment
// (TF_VAR_endpoint_secret; the test's ConfigVariables would write it to a .tfvars.json file in the
// working directory), and searches everything Terraform and the provider leave behind:
//
//   - the state: terraform.tfstate and its backup, read as files, besides the state checks;
//   - the saved plan: the tfplan file the apply uses, every entry of the zip decompressed (the plan,
//     the prior state and the configuration snapshot inside it), and its `terraform show -json`;
//   - every file under the working directory after each step and after the destroy;
//   - the log: Terraform's TRACE log and the provider's own tflog output, which the in-process
//     provider writes to the same file (TF_ACC_LOG_PATH, TF_ACC_LOG=TRACE).
//
// A search that cannot find anything proves nothing, so each is shown to work where the text must be:
// the secret is found in the request the sandbox received (the same search, on the same forms of the
// secret); a second endpoint with a generated secret, which the provider does keep in state, has that
// secret found in the raw state file and inside the zipped plan file; the plan file holds a canary
// description from the configuration; and the log holds the provider's own lines about the create and
// the rotation. Deliveries to an in-process receiver verify with the secret, and after a new version
// with the new one, and with the old one during the grace period.

// secretForms are the texts under which a secret could be written down: as given, its base64 part,
// JSON-escaped (encoding/json may write / as \/ and + as \u002b), and the decoded key bytes.
func secretForms(t testing.TB, secret string) map[string][]byte {
	t.Helper()
	b64 := strings.TrimPrefix(secret, "whsec_")
	key, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	escaped := strings.NewReplacer("/", `\/`, "+", `\u002b`).Replace(secret)
	return map[string][]byte{"the secret": []byte(secret), "its base64 part": []byte(b64),
		"the JSON-escaped secret": []byte(escaped), "the decoded key": key}
}

// findSecret reports under which form, if any, secret occurs in data.
func findSecret(t testing.TB, data []byte, secret string) (string, bool) {
	t.Helper()
	for form, needle := range secretForms(t, secret) {
		if bytes.Contains(data, needle) {
			return form, true
		}
	}
	return "", false
}

// fileContents returns every regular file under root by name, the entries of zip files (saved plans)
// decompressed, each as "<file>!<entry>".
func fileContents(t testing.TB, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[rel] = data
		if zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					return err
				}
				entry, err := io.ReadAll(rc)
				_ = rc.Close()
				if err != nil {
					return err
				}
				out[rel+"!"+f.Name] = entry
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// matching returns the contents whose name (relative to the working directories' root) has the
// given base name, e.g. "tfplan" or "terraform.tfstate".
func matching(contents map[string][]byte, base string) map[string][]byte {
	out := map[string][]byte{}
	for name, data := range contents {
		file, _, _ := strings.Cut(name, "!")
		if filepath.Base(file) == base {
			out[name] = data
		}
	}
	return out
}

// exchangeRecorder keeps the body of every request the sandbox receives and of its response.
type exchangeRecorder struct {
	mu        sync.Mutex
	exchanges []recordedExchange
}

type recordedExchange struct {
	method, path   string
	request, reply []byte
}

type teeWriter struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (w *teeWriter) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (x *exchangeRecorder) middleware(_ *sandbox.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		tee := &teeWriter{ResponseWriter: w}
		next.ServeHTTP(tee, r)
		x.mu.Lock()
		x.exchanges = append(x.exchanges, recordedExchange{method: r.Method, path: r.URL.Path, request: body, reply: tee.body.Bytes()})
		x.mu.Unlock()
	})
}

// of returns the recorded exchanges of an operation (its path's first segments suffice for these).
func (x *exchangeRecorder) of(op api.Operation) []recordedExchange {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []recordedExchange
	for _, e := range x.exchanges {
		if e.method == op.Method && pathMatches(op.Path, e.path) {
			out = append(out, e)
		}
	}
	return out
}

func pathMatches(template, path string) bool {
	want, got := strings.Split(template, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !strings.HasPrefix(want[i], "{") && want[i] != got[i] {
			return false
		}
	}
	return true
}

// deliveryReceiver is an in-process webhook receiver that keeps every delivery.
type deliveryReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []delivery
}

type delivery struct {
	path   string
	header http.Header
	body   []byte
}

func newDeliveryReceiver(t *testing.T) *deliveryReceiver {
	rc := &deliveryReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{path: r.URL.Path, header: r.Header.Clone(), body: body})
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// waitFor returns the first delivery to path about the payout, waiting for it to arrive.
func (rc *deliveryReceiver) waitFor(t *testing.T, path, payoutID string) delivery {
	t.Helper()
	var found *delivery
	require.Eventually(t, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for i, d := range rc.got {
			var event struct {
				Data struct {
					Object map[string]any `json:"object"`
				} `json:"data"`
			}
			if d.path == path && json.Unmarshal(d.body, &event) == nil && event.Data.Object["payout_id"] == payoutID {
				found = &rc.got[i]
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "a delivery of payout %s to %s", payoutID, path)
	return *found
}

// newWhsec returns "whsec_" and the base64 of n random bytes.
func newWhsec(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// payoutDelivery makes a payout that succeeds and returns its delivery to the receiver's path.
func payoutDelivery(t *testing.T, sb *testSandbox, rc *deliveryReceiver, path string) delivery {
	t.Helper()
	p, err := sb.client(t).ProcessPayout(context.Background(), client.MobilePayout{Amount: 100, CountryID: "ctry_zm",
		MomoPhoneNumber: testValues(t).mobileOK.MomoPhoneNumber})
	require.NoError(t, err)
	return rc.waitFor(t, path, p.PayoutID)
}

// verifies reports whether the delivery verifies with secret alone.
func verifies(t *testing.T, d delivery, secret string) error {
	t.Helper()
	s, err := webhook.ParseEndpointSecret(secret)
	require.NoError(t, err)
	return webhook.Verifier{Secrets: []webhook.Secret{s}}.Verify(d.header, d.body)
}

// planFileCheck searches the saved plan that the apply is about to use, and its JSON rendering.
type planFileCheck struct {
	t       *testing.T
	root    string
	secrets []string
	// made, when set, are more secrets to search for, known only once the plan is made (an ephemeral
	// resource's, opened during the plan).
	made     func() []string
	mustHave func() map[string]string // what the plan file must contain, by what it is
}

func (c planFileCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	t := c.t
	plans := matching(fileContents(t, c.root), "tfplan")
	if len(plans) < 2 {
		resp.Error = fmt.Errorf("found no saved plan (tfplan and its entries) under %s: %v", c.root, keys(plans))
		return
	}
	rendered, err := json.Marshal(req.Plan)
	require.NoError(t, err)
	plans["terraform show -json tfplan"] = rendered
	secrets := c.secrets
	if c.made != nil {
		secrets = append(slices.Clone(secrets), c.made()...)
	}
	for _, secret := range secrets {
		for name, data := range plans {
			if form, found := findSecret(t, data, secret); found {
				resp.Error = fmt.Errorf("the saved plan %s contains %s", name, form)
				return
			}
		}
	}
	all := bytes.Join(values(plans), nil)
	for what, text := range c.mustHave() {
		if !bytes.Contains(all, []byte(text)) {
			resp.Error = fmt.Errorf("the saved plan does not contain %s, so the search of it proves nothing", what)
			return
		}
	}
	t.Logf("searched the saved plan: %v", keys(plans))
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func values(m map[string][]byte) [][]byte {
	out := make([][]byte, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// A secret of one's own reaches the API through an ephemeral variable and secret_wo, signs the
// deliveries, and is in no state, plan, file or log; a new secret_wo_version rotates to a new secret,
// and the old one keeps verifying during the grace period.
func TestAccWebhookEndpointResource_writeOnlySecret(t *testing.T) {
	first, second := newWhsec(t, 32), newWhsec(t, webhook.MaxSecretBytes)
	workRoot, logPath := t.TempDir(), filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_ACC_TEMP_DIR", workRoot)
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_VAR_endpoint_secret", first)

	recorder := &exchangeRecorder{}
	sb := startSandbox(t, sandbox.WithHooks(sandbox.Hooks{Middleware: recorder.middleware}))
	rc := newDeliveryReceiver(t)
	canary := "canary-" + strings.TrimPrefix(newWhsec(t, 6), "whsec_")
	config := func(version int) string {
		return sb.providerConfig() + fmt.Sprintf(`
variable "endpoint_secret" {
  type      = string
  ephemeral = true
  sensitive = true
}

resource "malipo_webhook_endpoint" "test" {
  url               = "%[1]s/own"
  events            = ["payout.success"]
  description       = %[2]q
  secret_wo         = var.endpoint_secret
  secret_wo_version = %[3]d
}

# The control: a generated secret, which the provider keeps in state, so that the searches are
# shown to find a secret where there is one.
resource "malipo_webhook_endpoint" "control" {
  url    = "%[1]s/control"
  events = ["payment.success"]
}
`, rc.srv.URL, canary, version)
	}
	// controlSecret is the secret the API generated for the control endpoint, from its create response.
	controlSecret := func() string {
		for _, e := range recorder.of(api.OpCreateWebhookEndpoint()) {
			if bytes.Contains(e.request, []byte("/control")) {
				var env struct {
					Data struct {
						Secret string `json:"secret"`
					} `json:"data"`
				}
				require.NoError(t, json.Unmarshal(e.reply, &env))
				require.NotEmpty(t, env.Data.Secret)
				return env.Data.Secret
			}
		}
		t.Fatal("the control endpoint was never created")
		return ""
	}
	// noSecretInFiles searches every file Terraform left under the working directories, and the
	// state files by name.
	noSecretInFiles := func(secrets ...string) error {
		contents := fileContents(t, workRoot)
		states := matching(contents, "terraform.tfstate")
		if len(states) == 0 {
			return fmt.Errorf("found no terraform.tfstate under %s", workRoot)
		}
		for _, secret := range secrets {
			for name, data := range contents {
				if form, found := findSecret(t, data, secret); found {
					return fmt.Errorf("%s (under the working directory) contains %s", name, form)
				}
			}
		}
		t.Logf("searched %d files under the working directory, %d of them state files", len(contents), len(states))
		return nil
	}
	// controlSecretInState proves the state search finds a secret that is there.
	controlSecretInState := func() error {
		for _, data := range matching(fileContents(t, workRoot), "terraform.tfstate") {
			if _, found := findSecret(t, data, controlSecret()); found {
				return nil
			}
		}
		return fmt.Errorf("the generated secret of the control endpoint is not in the state file, so the state search proves nothing")
	}
	ownID := func(st *terraform.State) string {
		return st.RootModule().Resources[endpointAddr].Primary.Attributes["id"]
	}

	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(st *terraform.State) error {
			if err := sb.checkEndpointsDestroyed(st); err != nil {
				return err
			}
			return noSecretInFiles(first, second) // after the destroy, before the working directory goes
		},
		Steps: []resource.TestStep{
			{
				Config: config(1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo"), knownvalue.Null()),
						planFileCheck{t: t, root: workRoot, secrets: []string{first},
							mustHave: func() map[string]string { return map[string]string{"the canary description": canary} }},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo_version"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("malipo_webhook_endpoint.control", tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
				},
				Check: func(st *terraform.State) error {
					if err := noSecretInFiles(first); err != nil {
						return err
					}
					if err := controlSecretInState(); err != nil {
						return err
					}
					d := payoutDelivery(t, sb, rc, "/own")
					if n := len(webhook.Signatures(d.header.Get(webhook.HeaderSignature))); n != 1 {
						return fmt.Errorf("a new endpoint's delivery carries %d signatures, want 1", n)
					}
					if err := verifies(t, d, first); err != nil {
						return fmt.Errorf("the delivery does not verify with secret_wo: %w", err)
					}
					if _, ok := sb.srv.WebhookEndpoint(sandbox.DefaultPublicKey, ownID(st)); !ok {
						return fmt.Errorf("endpoint %s is not in the sandbox", ownID(st))
					}
					return nil
				},
			},
			{
				PreConfig: func() { t.Setenv("TF_VAR_endpoint_secret", second) },
				Config:    config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("malipo_webhook_endpoint.control", plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
						planFileCheck{t: t, root: workRoot, secrets: []string{first, second}, mustHave: func() map[string]string {
							return map[string]string{"the canary description": canary,
								"the control endpoint's generated secret (in the prior state)": controlSecret()}
						}},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo_version"), knownvalue.Int64Exact(2)),
				},
				Check: func(*terraform.State) error {
					if err := noSecretInFiles(first, second); err != nil {
						return err
					}
					d := payoutDelivery(t, sb, rc, "/own")
					if n := len(webhook.Signatures(d.header.Get(webhook.HeaderSignature))); n != 2 {
						return fmt.Errorf("during the grace period a delivery carries %d signatures, want 2 (new and old)", n)
					}
					if err := verifies(t, d, second); err != nil {
						return fmt.Errorf("after the rotation the delivery does not verify with the new secret_wo: %w", err)
					}
					if err := verifies(t, d, first); err != nil {
						return fmt.Errorf("during the grace period the delivery does not verify with the old secret_wo: %w", err)
					}
					return nil
				},
			},
		},
	})
	if t.Failed() {
		return
	}

	// The secrets were sent: the search finds each in the request the sandbox received, and the API's
	// answer shows it, as it shows a generated one; the provider kept neither.
	creates, rotations := recorder.of(api.OpCreateWebhookEndpoint()), recorder.of(api.OpRotateWebhookEndpointSecret())
	require.Len(t, creates, 2, "two endpoints")
	require.Len(t, rotations, 1, "one rotation, by the new secret_wo_version")
	sent := func(es []recordedExchange, secret string) bool {
		for _, e := range es {
			if _, inRequest := findSecret(t, e.request, secret); inRequest {
				_, inReply := findSecret(t, e.reply, secret)
				return inReply
			}
		}
		return false
	}
	assert.True(t, sent(creates, first), "the create request carried the first secret_wo, and its answer showed it")
	assert.True(t, sent(rotations, second), "the rotation request carried the second secret_wo, and its answer showed it")

	// The log: Terraform's TRACE output and the provider's own tflog lines, in one file.
	logs, err := os.ReadFile(logPath)
	require.NoError(t, err)
	// So that its search means something, it must hold Terraform's lines, the provider's own lines
	// about sending each secret, and a value of the configuration (the canary description).
	e, err := currentEngine()
	require.NoError(t, err)
	engineLine := fmt.Sprintf("%s version: %s", e.name, e.version) // the engine's own first lines
	for _, want := range []string{engineLine, "Created webhook endpoint", "Rotated webhook endpoint secret", "secret=secret_wo", canary} {
		assert.Contains(t, string(logs), want, "the log lacks an expected line")
	}
	for name, secret := range map[string]string{"the first secret_wo": first, "the second secret_wo": second,
		"the control endpoint's generated (sensitive) secret": controlSecret()} {
		form, found := findSecret(t, logs, secret)
		assert.False(t, found, "the log (%d bytes) contains %s of %s", len(logs), form, name)
	}
	t.Logf("searched %d bytes of TRACE log", len(logs))
}

// A write-only secret is checked at plan time, in plain words that never show it, and the secret
// attributes combine only in the documented ways.
func TestAccWebhookEndpointResource_writeOnlyInvalidInput(t *testing.T) {
	sb := startSandbox(t)
	weak := newWhsec(t, 16)
	step := func(body string, want string) resource.TestStep {
		return resource.TestStep{
			Config: sb.providerConfig() + `resource "malipo_webhook_endpoint" "test" {
  url    = "https://merchant.example.org/h"
  events = ["payout.failed"]
` + body + "\n}",
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			step(fmt.Sprintf("secret_wo = %q\nsecret_wo_version = 1", weak),
				`(?s)Invalid Webhook Signing Secret.*decodes\s+to\s+16\s+bytes.*24\s+to\s+64\s+random\s+bytes.*openssl\s+rand.*not\s+shown`),
			step(fmt.Sprintf("secret_wo = %q", newWhsec(t, 32)), `(?s)Missing secret_wo_version.*change\s+it\s+whenever\s+you\s+change\s+secret_wo`),
			step("secret_wo_version = 1", `(?s)Missing secret_wo\b.*remove\s+secret_wo_version\s+to\s+have\s+the\s+API\s+generate`),
			step(fmt.Sprintf("secret_wo = %q\nsecret_wo_version = 1\nsecret_rotation = \"2026-11\"", newWhsec(t, 32)),
				`(?s)Conflicting Secret Settings.*remove\s+secret_rotation`),
		},
	})
}

// An endpoint made outside Terraform, imported, then given a secret_wo: the first apply after the
// import sends it (the imported state has no secret_wo_version), and deliveries verify with it.
func TestAccWebhookEndpointResource_importThenWriteOnlySecret(t *testing.T) {
	sb := startSandbox(t)
	rc := newDeliveryReceiver(t)
	created, err := sb.client(t).CreateWebhookEndpoint(t.Context(), client.WebhookEndpointCreateRequest{
		URL: rc.srv.URL + "/legacy", Events: []client.EventType{api.EventTypePayoutSuccess}})
	require.NoError(t, err)
	own := newWhsec(t, 32)
	// A literal secret keeps this test parallel (no environment); the secrecy is the test above's.
	config := sb.providerConfig() + fmt.Sprintf(`
resource "malipo_webhook_endpoint" "test" {
  url               = "%s/legacy"
  events            = ["payout.success"]
  secret_wo         = %q
  secret_wo_version = 1
}`, rc.srv.URL, own)
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       endpointAddr,
				ImportState:        true,
				ImportStateId:      created.ID,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if v := states[0].Attributes["secret_wo_version"]; v != "" {
						return fmt.Errorf("imported secret_wo_version = %q, want none", v)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret_wo_version"), knownvalue.Int64Exact(1)),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("id"), knownvalue.StringExact(created.ID)),
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					d := payoutDelivery(t, sb, rc, "/legacy")
					if err := verifies(t, d, own); err != nil {
						return fmt.Errorf("after the first apply the imported endpoint does not sign with secret_wo: %w", err)
					}
					if err := verifies(t, d, created.Secret); err != nil {
						return fmt.Errorf("during the grace period the secret the endpoint had before must still verify: %w", err)
					}
					return nil
				},
			},
		},
	})
}

// secret_wo's plan-time check says what is wrong and how to make a good secret, and never shows it.
func TestEndpointSecretValidatorNeverShowsTheValue(t *testing.T) {
	for _, weak := range []string{newWhsec(t, 16), newWhsec(t, 65), strings.TrimPrefix(newWhsec(t, 32), "whsec_"), newWhsec(t, 31) + "\n"} {
		var resp validator.StringResponse
		endpointSecretValidator{}.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("secret_wo"), ConfigValue: types.StringValue(weak)}, &resp)
		require.True(t, resp.Diagnostics.HasError())
		for _, d := range resp.Diagnostics {
			text := d.Summary() + " " + d.Detail()
			assert.NotContains(t, text, strings.TrimSpace(weak)[8:24])
			assert.Contains(t, text, "24 to 64 random bytes")
			assert.Contains(t, text, "not shown")
		}
	}
	var resp validator.StringResponse
	endpointSecretValidator{}.ValidateString(context.Background(), validator.StringRequest{
		Path: path.Root("secret_wo"), ConfigValue: types.StringValue(newWhsec(t, webhook.MinSecretBytes))}, &resp)
	assert.False(t, resp.Diagnostics.HasError(), "%v", resp.Diagnostics)
}

// An endpoint moves from a generated secret to one of its own and back: giving it secret_wo (with a
// version) sends that secret and drops the generated one from state; removing them keeps the secret
// until secret_rotation asks the API for a new one, which is then in state again.
func TestAccWebhookEndpointResource_generatedToWriteOnlyAndBack(t *testing.T) {
	sb := startSandbox(t)
	rc := newDeliveryReceiver(t)
	own := newWhsec(t, 32)
	config := func(secret string) string {
		return sb.providerConfig() + fmt.Sprintf(`
resource "malipo_webhook_endpoint" "test" {
  url    = "%s/switch"
  events = ["payout.success"]
%s
}`, rc.srv.URL, secret)
	}
	var generated string
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_11_0)},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             sb.checkEndpointsDestroyed,
		Steps: []resource.TestStep{
			{
				Config: config(`secret_rotation = "first"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
				},
				Check: func(st *terraform.State) error {
					generated = st.RootModule().Resources[endpointAddr].Primary.Attributes["secret"]
					return nil
				},
			},
			{
				Config: config(fmt.Sprintf("secret_wo = %q\nsecret_wo_version = 1", own)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(endpointAddr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
				},
				Check: func(*terraform.State) error {
					d := payoutDelivery(t, sb, rc, "/switch")
					if err := verifies(t, d, own); err != nil {
						return fmt.Errorf("after the switch to secret_wo the delivery does not verify with it: %w", err)
					}
					return verifies(t, d, generated) // the generated secret, in its grace period
				},
			},
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.Null()),
					},
				},
				Check: func(*terraform.State) error {
					d := payoutDelivery(t, sb, rc, "/switch")
					return verifies(t, d, own) // removing secret_wo sends nothing: the endpoint keeps its secret
				},
			},
			{
				Config: config(`secret_rotation = "second"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectUnknownValue(endpointAddr, tfjsonpath.New("secret"))},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(endpointAddr, tfjsonpath.New("secret"), knownvalue.StringRegexp(whsecPattern)),
				},
				Check: func(st *terraform.State) error {
					d := payoutDelivery(t, sb, rc, "/switch")
					return verifies(t, d, st.RootModule().Resources[endpointAddr].Primary.Attributes["secret"])
				},
			},
		},
	})
}
