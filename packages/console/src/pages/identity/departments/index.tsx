export { default } from '../../unbuilt';
