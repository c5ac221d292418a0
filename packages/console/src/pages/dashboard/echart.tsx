import { BarChart, type BarSeriesOption, LineChart, type LineSeriesOption } from 'echarts/charts';
import {
  GridComponent,
  type GridComponentOption,
  type LegendComponentOption,
  LegendPlainComponent,
  TooltipComponent,
  type TooltipComponentOption,
} from 'echarts/components';
import { type ComposeOption, type EChartsType, init, use } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';

// Only what the dashboard draws (decision 0036 has the sizes): the full build is ~370 KB gzip, these
// pieces ~180 KB, of which ECharts' core alone is ~96 KB. The plain legend: two entries never scroll.
// SVG rather than canvas (+4 KB): sharp at every pixel ratio and zoom, and in a printed page.
use([BarChart, LineChart, GridComponent, LegendPlainComponent, TooltipComponent, SVGRenderer]);

export type ChartOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption
>;

/**
 * One ECharts instance in a box: drawn on mount, redrawn whole when `option` changes (theme or
 * language), resized with its box, disposed on unmount. The box is an image to assistive
 * technology, named by `label`; the numbers themselves are the caller's table beside it.
 */
export function EChart({ option, label, height = 260 }: { option: ChartOption; label: string; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const instance = init(el, null, { renderer: 'svg' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(el);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={box} role="img" aria-label={label} style={{ width: '100%', height }} />;
}
