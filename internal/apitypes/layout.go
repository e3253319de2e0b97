package apitypes

// LayoutSwitch is the field of renderPref's layout switch with the given wire name
// (rules.LayoutSwitches, disableFitLayout, disableFillLayout, enableCrop), so the switches can be
// read and set by name; nil for any other name.
func (p *RenderPref) LayoutSwitch(wire string) **bool {
	switch wire {
	case "enableAutoLayout":
		return &p.EnableAutoLayout
	case "enableGameLayout":
		return &p.EnableGameLayout
	case "enableScreenLayout":
		return &p.EnableScreenLayout
	case "enableFourLayout":
		return &p.EnableFourLayout
	case "enableThreeLayout":
		return &p.EnableThreeLayout
	case "enableSplitLayout":
		return &p.EnableSplitLayout
	case "enableFitLayout":
		return &p.EnableFitLayout
	case "enableFillLayout":
		return &p.EnableFillLayout
	case "skipReframe":
		return &p.SkipReframe
	case "disableFitLayout":
		return &p.DisableFitLayout
	case "disableFillLayout":
		return &p.DisableFillLayout
	case "enableCrop":
		return &p.EnableCrop
	}
	return nil
}

// LayoutValue is the value of the layout switch named wire (nil when unset or unknown).
func (p *RenderPref) LayoutValue(wire string) *bool {
	if f := p.LayoutSwitch(wire); f != nil {
		return *f
	}
	return nil
}
