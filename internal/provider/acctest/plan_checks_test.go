package acctest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// expectUnknownAttributes checks that the planned change of addr leaves
// exactly the named top-level attributes unknown ("known after apply").
func expectUnknownAttributes(addr string, names ...string) plancheck.PlanCheck {
	return unknownAttributesCheck{addr: addr, want: names}
}

type unknownAttributesCheck struct {
	addr string
	want []string
}

func (c unknownAttributesCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		unknown, ok := rc.Change.AfterUnknown.(map[string]any)
		if !ok {
			resp.Error = fmt.Errorf("%s: after_unknown is %T, not an object", c.addr, rc.Change.AfterUnknown)
			return
		}
		var got []string
		for name, v := range unknown {
			if anyTrue(v) {
				got = append(got, name)
			}
		}
		sort.Strings(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			resp.Error = fmt.Errorf("%s: unknown after apply: %v, want exactly %v", c.addr, got, want)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", c.addr)
}

// anyTrue reports whether an after_unknown value marks anything unknown; for
// nested attributes it is an object or list of such marks.
func anyTrue(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		for _, e := range v {
			if anyTrue(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if anyTrue(e) {
				return true
			}
		}
	}
	return false
}

// expectReplacedBy checks that the planned replacement of addr names the
// top-level argument arg among its causes (replace_paths).
func expectReplacedBy(addr, arg string) plancheck.PlanCheck {
	return replacedByCheck{addr: addr, arg: arg}
}

type replacedByCheck struct{ addr, arg string }

func (c replacedByCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		var causes []any
		for _, p := range rc.Change.ReplacePaths {
			if steps, ok := p.([]any); ok && len(steps) > 0 {
				causes = append(causes, steps[0])
				if steps[0] == c.arg {
					return
				}
			}
		}
		resp.Error = fmt.Errorf("%s: replaced because of %v, want %s among them", c.addr, causes, c.arg)
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", c.addr)
}

// expectInstancesAction checks that every instance of the for_each or count
// resource addr (addr["key"], addr[0]) plans action, and that it has some.
func expectInstancesAction(addr string, action plancheck.ResourceActionType) plancheck.PlanCheck {
	return instancesActionCheck{addr: addr, action: action}
}

type instancesActionCheck struct {
	addr   string
	action plancheck.ResourceActionType
}

func (c instancesActionCheck) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	n := 0
	for _, rc := range req.Plan.ResourceChanges {
		if !strings.HasPrefix(rc.Address, c.addr+"[") {
			continue
		}
		n++
		one := &plancheck.CheckPlanResponse{}
		plancheck.ExpectResourceAction(rc.Address, c.action).CheckPlan(ctx, req, one)
		if one.Error != nil {
			resp.Error = one.Error
			return
		}
	}
	if n == 0 {
		resp.Error = fmt.Errorf("%s: no instance in the plan", c.addr)
	}
}
